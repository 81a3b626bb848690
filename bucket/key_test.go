package bucket

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeyOf(t *testing.T) {
	at := time.Date(2026, 12, 5, 23, 59, 0, 0, time.FixedZone("x", -3600))
	tests := []struct {
		name, file, service string
		zstd                bool
		want                string
	}{
		{"trace", "0af7651916cd43dd8448eb211c80319c.jsonl", "checkout", false,
			"dt=2026-12-06/service=checkout/0af7651916cd43dd8448eb211c80319c.jsonl"},
		{"zstd", "conv-abc.jsonl", "checkout", true, "dt=2026-12-06/service=checkout/conv-abc.jsonl.zst"},
		{"no service", "conv-abc.jsonl", "", false, "dt=2026-12-06/service=unknown_service/conv-abc.jsonl"},
		{"service sanitized", "conv-abc.jsonl", "Check Out/../x", false,
			"dt=2026-12-06/service=Check_Out_.._x-"},
		{"id like a generation", "conv-x.g2.jsonl", "s", false, "dt=2026-12-06/service=s/conv-x.g2_.jsonl"},
		{"escaped id escaped again", "conv-x.g2_.jsonl", "s", false, "dt=2026-12-06/service=s/conv-x.g2__.jsonl"},
		{"rotated", "service.name-a.R1733443200000000000.jsonl", "s", false,
			"dt=2026-12-06/service=s/service.name-a.R1733443200000000000.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := KeyOf(tt.file, at, tt.service, tt.zstd)
			assert.True(t, strings.HasPrefix(k.String(), tt.want), "%s does not start with %s", k, tt.want)
			back, err := ParseKey(k.String())
			require.NoError(t, err)
			assert.Equal(t, k, back)
			g2 := k
			g2.Gen = 2
			back, err = ParseKey(g2.String())
			require.NoError(t, err)
			assert.Equal(t, g2, back)
			assert.Equal(t, k, back.Run().withZstd(k.Zstd))
		})
	}
}

func (k Key) withZstd(z bool) Key { k.Zstd = z; return k }

func TestParseKeyRefuses(t *testing.T) {
	for _, key := range []string{
		"", "x.jsonl", "dt=2026-12-05/x.jsonl", "dt=2026-13-05/service=s/x.jsonl",
		"dt=2026-12-05/service=/x.jsonl", "dt=2026-12-05/service=s/x.txt",
		"dt=2026-12-05/service=s/.jsonl", "dt=2026-12-05/service=s/x.g1.jsonl",
		"dt=2026-12-05/service=s/x.g02.jsonl", "dt=2026-12-05/service=s/a b.jsonl",
		"catalog/dt=2026-12-05/x.parquet", "dt=2026-12-05/service=s/sub/x.jsonl",
	} {
		_, err := ParseKey(key)
		assert.ErrorIs(t, err, ErrNotArtifactKey, "%q", key)
	}
}

// FuzzParseKey: ParseKey never panics, and what it reads is the key it was
// given, written back.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{
		"dt=2026-12-05/service=s/0af7651916cd43dd8448eb211c80319c.jsonl",
		"dt=2026-12-05/service=s/conv-x.g2_.g3.jsonl.zst",
		"dt=2026-12-05/service=a-0123456789abcdef/x.g10.jsonl",
		"dt=2026-12-05/service=s/x.g.jsonl",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err != nil {
			return
		}
		if k.String() != s {
			t.Fatalf("ParseKey(%q) = %+v, written back %q", s, k, k.String())
		}
	})
}

// TestOpenKeepsSecretsOut: no part of a bucket URL that may be a secret
// (a password, a query value but the harmless ones) is in Open's errors
// or the bucket's name.
func TestOpenKeepsSecretsOut(t *testing.T) {
	const secret = "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"
	for _, u := range []string{
		"s3://runs/prod?region=us-east-1&access_key=" + secret,
		"s3://AKIA:" + secret + "@runs/prod?region=us-east-1",
		"s3://runs/prod?endpoint=http://me:" + secret + "@127.0.0.1:1&bogus=" + secret,
		"ftp://runs/prod?token=" + secret,
		"s3://runs/%zz?token=" + secret,
	} {
		b, err := Open(context.Background(), u)
		if err == nil {
			assert.NotContains(t, b.String(), secret)
			assert.NotContains(t, b.wrap("op", errors.New(u)).Error(), secret)
			require.NoError(t, b.Close())
		} else {
			assert.NotContains(t, err.Error(), secret)
		}
		if err := CheckURL(u); err != nil {
			assert.NotContains(t, err.Error(), secret)
		}
	}
	b, err := Open(context.Background(), "mem://runs/prod?nomd5")
	require.NoError(t, err)
	assert.Equal(t, "mem://runs/prod?nomd5=", b.String())
	require.NoError(t, b.Close())
}
