package bucket

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"gocloud.dev/blob"
)

// s3Put is what an S3 bucket needs to write an object in one PutObject
// of bytes whose SHA-256 Put has already computed: through gocloud, the
// SDK would hash them again twice (the SigV4 payload hash over http, and
// a CRC32 checksum, or a trailer over https) and the transfer manager
// would copy them into a buffer of its own first. Everything else (reads,
// listings, attributes, artifacts too large to hold in memory) goes
// through gocloud.
type s3Put struct {
	client   *s3.Client
	bucket   string
	prefix   string // the key prefix, with its trailing slash, or ""
	checksum bool   // send x-amz-checksum-sha256 (not with when_required)
}

// newS3Put is the direct writer of the gocloud S3 bucket b named by u
// (its prefix, if any, is prefix), or nil where gocloud's writer has to
// do it: server-side encryption asked for in the URL (gocloud sets those
// headers), or a client it does not expose.
func newS3Put(b *blob.Bucket, u *url.URL, prefix string) *s3Put {
	q := u.Query()
	if q.Has("ssetype") || q.Has("kmskeyid") {
		return nil
	}
	var c *s3.Client
	if !b.As(&c) || c == nil {
		return nil
	}
	p := &s3Put{client: c, bucket: u.Host,
		checksum: c.Options().RequestChecksumCalculation != aws.RequestChecksumCalculationWhenRequired}
	if prefix != "" {
		p.prefix = prefix + "/"
	}
	return p
}

// plainKey reports whether key needs none of the escapes gocloud's S3
// driver applies to keys (control characters, "../", and its own escape
// sequence), so that an object written here is the one gocloud reads
// under that key.
func plainKey(key string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] < 32 {
			return false
		}
	}
	return !strings.Contains(key, "../") && !strings.Contains(key, "__0x")
}

// put writes body under key, create-only (If-None-Match: *), with meta as
// the object's metadata (keys and values that gocloud would not escape:
// see create). sum is the SHA-256 of body: it is the SigV4 payload hash
// (x-amz-content-sha256, which S3 checks against the body it received),
// and, unless the bucket's URL said request_checksum_calculation=
// when_required, the object's x-amz-checksum-sha256 (also checked by S3,
// and kept with the object). The SDK computes neither again.
func (p *s3Put) put(ctx context.Context, key, contentType string, body []byte, sum [sha256.Size]byte, meta map[string]string) error {
	in := &s3.PutObjectInput{
		Bucket:        aws.String(p.bucket),
		Key:           aws.String(p.prefix + key),
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
		ContentType:   aws.String(contentType),
		IfNoneMatch:   aws.String("*"),
		Metadata:      meta,
	}
	if p.checksum {
		in.ChecksumAlgorithm = types.ChecksumAlgorithmSha256
		in.ChecksumSHA256 = aws.String(base64.StdEncoding.EncodeToString(sum[:]))
	}
	hash := hex.EncodeToString(sum[:])
	_, err := p.client.PutObject(ctx, in, func(o *s3.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			// First in the finalize step, before the retry loop and the
			// middleware that would hash the body.
			return st.Finalize.Add(payloadHash(hash), middleware.Before)
		})
	})
	return err
}

// payloadHash gives the signer the payload's SHA-256, hex: the SDK's
// ComputePayloadSHA256 (and its checksum middleware) use a hash already
// set rather than read the body again.
type payloadHash string

// ID names the middleware.
func (payloadHash) ID() string { return "agenttrace:PayloadHash" }

// HandleFinalize sets the payload hash for the rest of the stack.
func (h payloadHash) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	return next.HandleFinalize(v4.SetPayloadHash(ctx, string(h)), in)
}

// s3Taken reports whether err is S3's answer to a create-only write of a
// key that exists (412 Precondition Failed), as gocloud's S3 driver reads
// it.
func s3Taken(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode() == "PreconditionFailed"
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusPreconditionFailed
}
