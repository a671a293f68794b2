package wgpu

// LearntMinimum is learntMinimum, for the tests.
var LearntMinimum = learntMinimum
