package wgpu

// NextPiece exposes nextPiece to the package's external tests.
var NextPiece = nextPiece
