package viewer

// Option configures Write.
type Option interface{ apply(*config) }

type config struct {
	title    string
	live     string
	liveData string
	convert  string
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTitle sets the document title; the default names the first run.
func WithTitle(title string) Option {
	return optionFunc(func(c *config) { c.title = title })
}

// WithLive makes the page follow a growing artifact. It opens an
// EventSource on events (same origin), whose "record" events say that the
// file gained lines (their data is not read: the page derives nothing),
// and then fetches run, the run's view model as WriteRunJSON writes it,
// and shows it in place of the last run, keeping the selection. A "reset"
// event reloads the page. Used by agenttrace serve; a page written to a
// file has no live source.
func WithLive(events, run string) Option {
	return optionFunc(func(c *config) { c.live, c.liveData = events, run })
}

// WithConvert makes the page send a file dropped on it (or opened with
// "Open file…") to url, same origin, as the body of a POST, and show the
// runs the answer holds: a JSON object {"runs": [view model…]} or
// {"error": "…"}. The server converts whatever the file is (an artifact,
// OTLP, Jaeger…) with the Go converter and importers. Without it (a page
// written to a file) the page opens dropped artifacts only, as written.
func WithConvert(url string) Option {
	return optionFunc(func(c *config) { c.convert = url })
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o.apply(&c)
	}
	return c
}
