package main

import "context"

func reportCmd(ctx context.Context, args []string) int { return 2 }
