package viewer

// Option configures Write.
type Option interface{ apply(*config) }

type config struct {
	title string
	live  string
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTitle sets the document title; the default names the first run.
func WithTitle(title string) Option {
	return optionFunc(func(c *config) { c.title = title })
}

// WithLive makes the page follow a growing artifact: it opens an
// EventSource on url (same origin) and appends each event's data, one
// artifact line, to the last run. Events are named "record"; the page
// treats a "meta" or "summary" line as the header or trailer. Used by
// agenttrace serve; a page written to a file has no live source.
func WithLive(url string) Option {
	return optionFunc(func(c *config) { c.live = url })
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o.apply(&c)
	}
	return c
}
