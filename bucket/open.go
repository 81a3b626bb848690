package bucket

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"sync"

	"gocloud.dev/blob"
	// The drivers of the URL schemes Open takes. Only programs that
	// import this package compile them (see the package documentation).
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/agenttrace/agenttrace/redact"
)

// ErrScheme is returned for a URL of a scheme Open does not take.
var ErrScheme = errors.New("bucket URL scheme is not one of s3, gs, azblob, file, mem")

// Schemes are the URL schemes Open takes.
var Schemes = []string{"s3", "gs", "azblob", "file", "mem"}

// A Bucket is a place for artifacts: a gocloud bucket and a key prefix.
// It is safe for concurrent use.
type Bucket struct {
	b      *blob.Bucket // keys relative to the prefix
	name   string       // the URL without secrets, for messages
	secret []string     // what of the URL must never show in a message
	shared bool         // a mem:// bucket of the process: never closed
	remote bool         // a cloud store (s3, gs, azblob): a request is a round trip
	runs   remembered   // partitions of runs uploaded (Put)
	s3     *s3Put       // S3's direct PutObject of an artifact in memory, or nil
}

// Open opens the bucket a gocloud URL names. The URL's path after the
// bucket is the key prefix every key is under: s3://runs/prod?region=…
// keeps artifacts under prod/ of bucket runs. A file:// URL names a
// folder (the whole path); its prefix, if any, is the query's prefix=.
// mem://name is a bucket in this process's memory, the same for every
// Open of name (for tests). Credentials come from each cloud SDK's default
// chain (environment, shared config, workload identity); none need be in
// the URL, and none of the URL (user, password, query values but for the
// few harmless ones) shows in an error or in String.
func Open(ctx context.Context, rawURL string) (*Bucket, error) {
	u, name, secrets, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if u.Scheme != "file" {
		prefix = strings.Trim(u.Path, "/")
		u.Path, u.RawPath = "", ""
	}
	return openPrefixed(ctx, u, prefix, name, secrets)
}

func openPrefixed(ctx context.Context, u *url.URL, prefix, name string, secrets []string) (*Bucket, error) {
	bk := &Bucket{name: name, secret: secrets, remote: u.Scheme == "s3" || u.Scheme == "gs" || u.Scheme == "azblob"}
	var b *blob.Bucket
	if u.Scheme == "mem" {
		b, bk.shared = memBucket(u.Host), true
	} else {
		var err error
		if b, err = blob.OpenBucket(ctx, u.String()); err != nil {
			return nil, bk.wrap("open", err)
		}
		if u.Scheme == "s3" {
			bk.s3 = newS3Put(b, u, prefix)
		}
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix+"/")
	}
	bk.b = b
	return bk, nil
}

// New makes a Bucket of b, an open gocloud bucket (keys relative to
// whatever prefix b has), named name in messages. Close does not close b.
func New(b *blob.Bucket, name string) *Bucket {
	return &Bucket{b: b, name: name, shared: true}
}

// String names the bucket as its URL without secrets.
func (b *Bucket) String() string { return b.name }

// Close closes the bucket.
func (b *Bucket) Close() error {
	if b.shared {
		return nil
	}
	return b.wrap("close", b.b.Close())
}

// Blob is the gocloud bucket under the prefix, for what this package does
// not do.
func (b *Bucket) Blob() *blob.Bucket { return b.b }

var (
	memMu      sync.Mutex
	memBuckets = map[string]*blob.Bucket{}
)

// memBucket is the process's in-memory bucket of name.
func memBucket(name string) *blob.Bucket {
	memMu.Lock()
	defer memMu.Unlock()
	b := memBuckets[name]
	if b == nil {
		b = memblob.OpenBucket(nil)
		memBuckets[name] = b
	}
	return b
}

// safeParams are query parameters whose values are no secret, shown in
// messages as they are.
var safeParams = map[string]bool{
	"region": true, "endpoint": true, "use_path_style": true, "s3ForcePathStyle": true,
	"disable_https": true, "dualstack": true, "fips": true, "accelerate": true, "awssdk": true,
	"prefix": true, "create_dir": true, "metadata": true, "dir_file_mode": true, "nomd5": true,
	"anonymous": true, "domain": true, "protocol": true, "localemu": true, "cdn": true,
}

// parseURL parses rawURL, checks its scheme, and returns it with a name
// for messages and the strings of it that must not appear in them.
func parseURL(rawURL string) (*url.URL, string, []string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url's error quotes the URL, secrets and all.
		return nil, "", nil, errors.New("bucket URL does not parse")
	}
	secrets := []string{rawURL}
	if u.User != nil {
		secrets = append(secrets, u.User.String())
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p)
		}
	}
	shown := *u
	shown.User = nil
	q := u.Query()
	sq := url.Values{}
	for k, vs := range q {
		for _, v := range vs {
			if safeParams[k] {
				if ep, err := url.Parse(v); err == nil && ep.User != nil {
					secrets = append(secrets, ep.User.String())
					ep.User = nil
					v = ep.String()
				}
				sq.Add(k, v)
				continue
			}
			if len(v) >= 4 { // shorter ones (a flag) would blank out bits of any message
				secrets = append(secrets, v, url.QueryEscape(v))
			}
			sq.Add(k, "REDACTED")
		}
	}
	shown.RawQuery = sq.Encode()
	name := shown.String()
	if red, found := redact.SecretsIn(name); found {
		name = red
	}
	if !isScheme(u.Scheme) {
		return nil, "", nil, fmt.Errorf("%s: %w", name, ErrScheme)
	}
	return u, name, secrets, nil
}

func isScheme(s string) bool {
	for _, x := range Schemes {
		if s == x {
			return true
		}
	}
	return false
}

// CheckURL checks that rawURL is a bucket URL Open takes, without opening
// it (a configuration check).
func CheckURL(rawURL string) error {
	u, name, _, err := parseURL(rawURL)
	if err != nil {
		return err
	}
	if u.Scheme != "file" && u.Scheme != "mem" && u.Host == "" {
		return fmt.Errorf("%s: names no bucket", name)
	}
	if u.Scheme == "file" && u.Path == "" {
		return fmt.Errorf("%s: names no folder", name)
	}
	return nil
}

// splitObjectURL splits the URL of one object into the URL of the folder
// it is in (as a bucket and prefix) and its name.
func splitObjectURL(rawURL string) (u *url.URL, prefix, name, shown string, secrets []string, err error) {
	u, shown, secrets, err = parseURL(rawURL)
	if err != nil {
		return nil, "", "", "", nil, err
	}
	p := u.Path
	if u.Scheme != "file" {
		p = strings.TrimPrefix(p, "/")
	}
	dir, name := path.Split(p)
	if name == "" {
		return nil, "", "", "", nil, fmt.Errorf("%s: names no object", shown)
	}
	if u.Scheme == "file" {
		u.Path, u.RawPath = dir, ""
		return u, "", name, shown, secrets, nil
	}
	u.Path, u.RawPath = "", ""
	return u, strings.TrimSuffix(dir, "/"), name, shown, secrets, nil
}

// safeError is an error whose message has the bucket URL's secrets taken
// out; it unwraps to the error it was made of (gcerrors.Code reads it).
type safeError struct {
	msg string
	err error
}

func (e *safeError) Error() string { return e.msg }
func (e *safeError) Unwrap() error { return e.err }

// wrap names the bucket and what failed, without a secret of its URL.
func (b *Bucket) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf("bucket %s: %s: %v", b.name, op, err)
	for _, s := range b.secret {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "REDACTED")
		}
	}
	if red, found := redact.SecretsIn(msg); found {
		msg = red
	}
	return &safeError{msg: msg, err: err}
}
