package seaweedtest

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ErrPreconditionFailed is what a create-only Put returns when the key is
// taken (412 Precondition Failed).
var ErrPreconditionFailed = errors.New("precondition failed (412): the key exists")

// ErrNotFound is what Get returns for a missing key.
var ErrNotFound = errors.New("no such key (404)")

// Object is one listed object.
type Object struct {
	Key  string
	Size int64
	// ETag is the entity tag without its quotes.
	ETag string
}

// Put writes body under key with a plain S3 PUT, independent of the code
// under test. With createOnly it sends If-None-Match: *, so that an
// existing key is answered 412 (ErrPreconditionFailed) and left as it was.
// It returns the new object's ETag.
func (s *Server) Put(ctx context.Context, key string, body []byte, createOnly bool) (etag string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, s.objectURL(key), bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	if createOnly {
		req.Header.Set("If-None-Match", "*")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("put %s: %w", key, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	switch resp.StatusCode {
	case http.StatusOK:
		return strings.Trim(resp.Header.Get("ETag"), `"`), nil
	case http.StatusPreconditionFailed:
		return "", fmt.Errorf("put %s: %w", key, ErrPreconditionFailed)
	}
	return "", fmt.Errorf("put %s: %s: %s", key, resp.Status, msg)
}

// Get reads the object under key and its ETag.
func (s *Server) Get(ctx context.Context, key string) (body []byte, etag string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.objectURL(key), nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("get %s: %w", key, err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", fmt.Errorf("get %s: %w", key, err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return body, strings.Trim(resp.Header.Get("ETag"), `"`), nil
	case http.StatusNotFound:
		return nil, "", fmt.Errorf("get %s: %w", key, ErrNotFound)
	}
	return nil, "", fmt.Errorf("get %s: %s: %s", key, resp.Status, body)
}

// List returns every object whose key starts with prefix, in key order
// (ListObjectsV2, following continuation tokens).
func (s *Server) List(ctx context.Context, prefix string) ([]Object, error) {
	var out []Object
	token := ""
	for {
		q := url.Values{}
		q.Set("list-type", "2")
		q.Set("prefix", prefix)
		if token != "" {
			q.Set("continuation-token", token)
		}
		page, err := s.listPage(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("list %q: %w", prefix, err)
		}
		for _, c := range page.Contents {
			out = append(out, Object{Key: c.Key, Size: c.Size, ETag: strings.Trim(c.ETag, `"`)})
		}
		if !page.IsTruncated || page.NextContinuationToken == "" {
			return out, nil
		}
		token = page.NextContinuationToken
	}
}

// listResult is the part of a ListObjectsV2 answer List reads.
type listResult struct {
	IsTruncated           bool
	NextContinuationToken string
	Contents              []struct {
		Key  string
		Size int64
		ETag string
	}
}

func (s *Server) listPage(ctx context.Context, q url.Values) (*listResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint+"/"+s.Bucket+"?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, body)
	}
	var page listResult
	if err := xml.Unmarshal(body, &page); err != nil {
		return nil, fmt.Errorf("decode ListObjectsV2 answer: %w", err)
	}
	return &page, nil
}

// objectURL is the path-style URL of key, each segment escaped.
func (s *Server) objectURL(key string) string {
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return s.Endpoint + "/" + s.Bucket + "/" + strings.Join(segs, "/")
}
