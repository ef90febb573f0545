// Package prcomment keeps one comment of toolscore's on a pull request: created on the first
// run, edited in place on every later one, found again by a hidden marker. It is the one
// report that writes to GitHub rather than to a file, through the REST API (go-github).
//
// The Action uses it in this order (name is the scenario's, with its shard when sharded):
//
//	marker := prcomment.Marker(name)                            // <!-- toolscore:NAME -->
//	c, err := prcomment.New(apiURL, "owner/name", token, nil)
//	body := action.CommentBody(marker, verdict, summary, link) // starts with the marker
//	res, err := c.Upsert(ctx, prNumber, marker, body)         // edit the one found, or create
//
// [Client.Upsert] looks through every page of the pull request's comments for one starting
// with the marker. [Denied] tells a token that may not write comments (a pull request from a
// fork gets a read-only one) from other errors, so the Action can say so and go on; [Status]
// is an error's HTTP status.
//
// Used by: the Action (package action). Its tests run against package fakegithub, a stand-in
// for the part of the API it uses, on loopback.
package prcomment
