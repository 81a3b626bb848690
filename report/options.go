package report

// DefaultTop is how many of the largest responses a report lists unless
// told otherwise: enough to spot the outliers, short enough to read.
const DefaultTop = 5

// Option configures a report.
type Option interface{ apply(*config) }

type config struct {
	top int
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTop sets how many of the largest responses the report lists;
// n <= 0 lists none.
func WithTop(n int) Option {
	return optionFunc(func(c *config) { c.top = max(n, 0) })
}

func newConfig(opts []Option) config {
	c := config{top: DefaultTop}
	for _, o := range opts {
		o.apply(&c)
	}
	return c
}
