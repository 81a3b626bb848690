// Package server serves a directory of agenttrace artifacts to a browser
// on the same machine: a list of the runs, the viewer page of each (package
// viewer), and a live stream of the lines a run gains while it is being
// written. It is what "agenttrace serve" runs.
//
//	s, err := server.New("runs")
//	ln, err := net.Listen("tcp", "127.0.0.1:0")
//	go s.Serve(ln)
//	...
//	s.Shutdown(ctx)
//
// # Routes
//
//   - / lists every *.jsonl file under the directory (subdirectories
//     included, hidden ones not), newest run first: its start, service,
//     record count, tokens in and out, errors, duration, budget use, and
//     whether its writer closed it. Rows are computed with artifact.Reader
//     and artifact.Tally, the numbers "agenttrace tokens" prints, and kept
//     until the file's size or modification time changes. A run whose
//     trailer accounts for records the file does not hold is listed with
//     the trailer's tokens and budget (report.WithTrailer) and the number
//     of records dropped.
//   - /run/PATH is the viewer page of one artifact: its complete lines
//     (up to the last newline) rendered by viewer.Write, with its trailer
//     and the lines it could not read, live from the next byte on
//     (viewer.WithLive).
//   - /events/PATH?offset=N is the live stream, as Server-Sent Events: each
//     complete line from byte N on is an event named "record" whose data is
//     the line and whose id is the offset past it, so a reconnecting
//     EventSource resumes exactly (Last-Event-ID). A torn last line is held
//     until its newline. A file that shrinks or is replaced gets one event
//     named "reset". Streams end when the client leaves or on Shutdown.
//   - /raw/PATH downloads the artifact.
//   - /data/PATH is the run's view model (viewer.WriteRunJSON), what a live
//     page fetches again when the stream says its file grew.
//   - POST /convert?name=NAME converts a file dropped on a viewer page,
//     whatever agenttrace reads, with the Go converter and importers, and
//     answers {"runs": [view model…]}, one run per trace. Only a page of
//     this server may ask (its Origin must name this server), and the body
//     is limited ([WithMaxUpload]).
//
// PATH is the artifact's path relative to the directory, slash-separated,
// each segment percent-encoded.
//
// # Security
//
// The pages show whole conversations and the server has no login, so it
// trusts only the machine it runs on:
//
//   - it listens on loopback only ([CheckAddr], [Server.Serve]);
//   - it answers only requests whose Host is localhost or a loopback IP,
//     which defeats DNS rebinding (a page on another site whose name was
//     pointed at 127.0.0.1);
//   - every file is opened through an [os.Root] on the directory, so ".."
//     and symbolic links cannot lead outside it (a link is followed only
//     when it is relative and stays inside); paths with dot segments,
//     encoded slashes or backslashes, control characters or hidden names
//     are refused before anything is opened, and only regular *.jsonl
//     files are served;
//   - responses are not cached, not sniffed, not framed, send no referrer,
//     and may not be loaded by other sites; the list page's
//     Content-Security-Policy allows its one style sheet and nothing else,
//     and the viewer page brings its own.
package server
