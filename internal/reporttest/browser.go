package reporttest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Chromium starts a headless Chromium (Debian's chromium package) for the test and returns a
// context to drive it; without chromium the test skips, unless TOOLSCORE_REQUIRE_CHROMIUM=1.
func Chromium(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("TOOLSCORE_REQUIRE_CHROMIUM") == "1" {
			t.Fatalf("chromium is not installed (apt-get install chromium), and TOOLSCORE_REQUIRE_CHROMIUM=1")
		}
		t.Skip("chromium is not installed (apt-get install chromium); set TOOLSCORE_REQUIRE_CHROMIUM=1 to fail instead")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		// The test may run as root, where Chromium's sandbox cannot start; the page is ours.
		chromedp.NoSandbox, chromedp.WindowSize(1280, 800),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// trap records, before any script of the page runs, every dialog a script opens: hostile text
// calls alert() wherever it would run.
const trap = `window.__ran = [];
for (const f of ["alert", "confirm", "prompt"]) { window[f] = function (m) { window.__ran.push(f + ": " + m); }; }`

// TrapScripts starts the browser of ctx and, before any page loads, traps every dialog a script
// would open (a dialog the trap missed is recorded and closed, or it would block the page). ran
// says what the page's scripts did: call it once the page is loaded.
func TrapScripts(t *testing.T, ctx context.Context) (ran func() []string) {
	t.Helper()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: trap}); err != nil {
		t.Fatalf("adding the dialog trap: %v", err)
	}
	var mu sync.Mutex
	var dialogs []string
	events := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			mu.Lock()
			dialogs = append(dialogs, ev.Message)
			mu.Unlock()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return func() []string {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__ran`))
		if err != nil {
			t.Fatalf("reading what the page's scripts did: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		return append(got, dialogs...)
	}
}

// RenderMarkdown renders md to HTML with cmark-gfm, the C library GitHub renders Markdown with,
// its GitHub extensions on and raw HTML kept, as GitHub has it before its sanitizer (and its
// tag filter) run, so what the escaping lets through shows. "" when cmark-gfm is not installed
// and TOOLSCORE_REQUIRE_CMARK is not 1 (scripts/test installs Debian's cmark-gfm).
func RenderMarkdown(t *testing.T, md string) string {
	t.Helper()
	path, err := exec.LookPath("cmark-gfm")
	if err != nil {
		if os.Getenv("TOOLSCORE_REQUIRE_CMARK") == "1" {
			t.Fatal("cmark-gfm is not installed: apt-get install cmark-gfm")
		}
		t.Log("cmark-gfm is not installed: the Markdown is checked, not rendered")
		return ""
	}
	cmd := exec.Command(path, "--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough", "-e", "tasklist", "-e", "footnotes")
	cmd.Stdin = strings.NewReader(md)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	html, err := cmd.Output()
	if err != nil {
		t.Fatalf("cmark-gfm: %v: %s", err, stderr.String())
	}
	return string(html)
}
