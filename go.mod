module github.com/cite-rag/cite

go 1.26.0

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/google/uuid v1.3.0 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	github.com/pkoukk/tiktoken-go-loader v0.0.2 // indirect
	github.com/yuin/goldmark v1.8.7 // indirect
	golang.org/x/net v0.62.0 // indirect
)
