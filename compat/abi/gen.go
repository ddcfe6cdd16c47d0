package main

// The header, the symbol table, the C prototypes and the porting guide's
// status table are generated from internal/gen/abi.txt and from the
// abigo_X exports and abic_X definitions of this package.
//go:generate go run ./internal/gen
