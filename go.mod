module github.com/wgcompute/wgcompute

go 1.26.8

require (
	github.com/rajveermalviya/go-webgpu/wgpu v0.17.1
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
