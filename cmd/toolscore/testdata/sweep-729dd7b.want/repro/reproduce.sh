#!/bin/sh
# Plays the recorded run to toolscore's adapter of this client, with no server.
cd "$(dirname "$0")" || exit 1
export TOOLSCORE_SERVER='["toolscore","replay","tee.jsonl"]'
export TOOLSCORE_TOOL='get_account_balance'
export TOOLSCORE_ARGUMENTS='{"account_id":"ACC-4471"}'
exec toolscore client 'raw'
