// Package fakegithub is a stand-in for the part of GitHub's REST API that the sticky pull
// request comment uses, on loopback, for tests: list an issue's comments (paginated with Link
// headers, as GitHub does), create one, edit one. The real API is not reachable from tests.
//
// A test starts one with [New], seeds it with [Server.Add], points the code under test at its
// URL (prcomment.New with the server's URL, or the Action with GITHUB_API_URL set to it), and
// then checks what it holds with [Server.Comments] and what was asked with [Server.Requests].
// [Server] fields set before the first request make it refuse a token, deny writes as GitHub
// does to a pull request from a fork (Deny), or cut pages short (PerPage). Comments made
// through it are written by [Bot], as the Actions token's are.
//
// Used by: the tests of package prcomment and of the CLI's action command.
package fakegithub
