// Package reporttest checks what toolscore's reports render, for the tests of the report
// package and of the commands that write reports from real sweeps.
//
// [CheckHTML] parses report.html as a browser would and fails the test where anything from
// outside (a server's or client's text) became markup; [TextOf] and [IsControl] help a test
// read the parsed page. [ValidJUnit] validates junit.xml against the checked-in junit.xsd with
// xmllint, and [ValidCTRF] validates ctrf.json against the CTRF JSON Schema; each only logs
// when its tool is missing, unless the test's environment variable requires it.
//
// Files: html.go (the HTML checks), schemas.go (the JUnit and CTRF validation), junit.xsd.
//
// Used by: the tests of package report and of the CLI (cmd/toolscore).
package reporttest
