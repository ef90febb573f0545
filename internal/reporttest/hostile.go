package reporttest

import "strings"

// Hostile holds strings a server under test or a client library might send, to break a table,
// run script, mention people, link elsewhere or flood the summary.
var Hostile = []string{
	"a | b || c",
	"`rm -rf /` and ```fence```",
	"<script>alert(1)</script>",
	`<img src=x onerror="alert(1)">`,
	"cc @someone and @org/team",
	"first line\nsecond\r\nthird\rfourth\u2028fifth",
	"**bold** __bold__ *it* _it_ ~~gone~~",
	"[click](https://evil.example) ![img](https://evil.example/x.png) [ref]: https://evil.example",
	"visit https://evil.example or www.evil.example or WWW.EVIL.EXAMPLE",
	"mail root@evil.example",
	"fixes #1 and org/repo#2",
	`trailing backslash \`,
	`escaped pipe \| already`,
	"&lt;script&gt; &amp; &#64;someone",
	"$\\href{https://evil.example}{x}$",
	"\x1b[2J\x1b[31mred\x07 bell",
	"\u202eexe.txt\u2066isolate\u2069",
	"bad utf-8 \xff\xfe here",
	"# heading\n- list\n> quote\n---",
	"<!-- comment --> <details><summary>x</summary>",
	strings.Repeat("A", 1<<20),
	strings.Repeat("|`<@\n", 1<<18),
}
