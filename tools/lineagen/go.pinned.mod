module github.com/wgcompute/wgcompute/tools/lineagen

go 1.26.8

require github.com/consensys/linea-monorepo/prover v0.0.0

replace (
	github.com/consensys/gnark => ./src/gnark
	github.com/consensys/linea-monorepo/prover => ./src/prover
)

require github.com/consensys/gnark-crypto v0.20.2-0.20260518142632-dffbd6f30adb // indirect

require (
	github.com/bits-and-blooms/bitset v1.25.0 // indirect
	github.com/blang/semver/v4 v4.0.0 // indirect
	github.com/consensys/gnark v0.15.1-0.20260526132122-c62f696e965f // indirect
	github.com/ethereum/go-ethereum v1.17.0 // indirect
	github.com/fxamacker/cbor/v2 v2.9.0 // indirect
	github.com/google/pprof v0.0.0-20260202012954-cb029daf43ef // indirect
	github.com/holiman/uint256 v1.3.2 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/ronanh/intcomp v1.1.1 // indirect
	github.com/rs/zerolog v1.34.0 // indirect
	github.com/sirupsen/logrus v1.9.3 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/crypto v0.57.0 // indirect
	golang.org/x/exp v0.0.0-20251219203646-944ab1f22d93 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
