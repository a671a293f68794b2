package lde

// ColumnValues is columnValues over KoalaBear's words, for the CPU path's
// benchmark.
var ColumnValues = columnValues[uint32]
