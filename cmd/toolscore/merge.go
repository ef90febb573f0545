package main

import "context"

func mergeCmd(ctx context.Context, args []string) int { return 2 }
