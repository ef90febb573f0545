// Package goadapter drives the Go client libraries toolscore knows, go-sdk and mcp-go, through
// one tools/call. It imports nothing of toolscore's own, so that toolscore can also build it by
// itself against another version of a library ([Source], [Main]): a manifest's version pin of a
// Go client, and what toolscore bisect builds for each version.
//
// It is used two ways. Compiled into toolscore, package client's go-sdk and mcp-go
// descriptors call [GoSDK] and [MCPGo] (after [MCPGoClient]) and turn the [Result] (what the
// library returned, or the error it [Raised]) into an observation. Built on its own, the
// cell image (cellimage.BuildGoAdapter) builds [Source] with the pinned version of one library, and a
// main that calls [Main], which reads the adapter contract from the environment and prints
// the observation line as the built-in adapter would; that binary is then the adapter the
// client's runs start (on docker, layered into its cell image).
//
// [GoSDKModule] and [MCPGoModule] name the libraries; [ModuleVersion] says which version of
// each is linked in (an observation names it, and a build for a pin keeps the other library's).
//
// Files: goadapter.go ([Result], [Source], [ModuleVersion]), gosdk.go ([GoSDK]), mcpgo.go
// ([MCPGoClient], [MCPGo]), main.go ([Main], the contract read on its own).
package goadapter
