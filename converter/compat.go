package converter

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
)

// The artifact format's types and line encoding moved to package artifact
// (issue 27). These names keep callers compiling for one step. The
// functions store/ calls per span or per artifact are functions, not
// variables holding one: a call through a variable is never inlined and
// its arguments escape (a trailer's Summary was one allocation per trace).

// Budget is artifact.Budget (moved there; this alias goes once every caller says artifact).
type Budget = artifact.Budget

// BudgetStatus is artifact.BudgetStatus (moved there; this alias goes once every caller says artifact).
type BudgetStatus = artifact.BudgetStatus

// CostBudget is artifact.CostBudget (moved there; this alias goes once every caller says artifact).
type CostBudget = artifact.CostBudget

// Encoder is artifact.Encoder (moved there; this alias goes once every caller says artifact).
type Encoder = artifact.Encoder

// Level is artifact.Level (moved there; this alias goes once every caller says artifact).
type Level = artifact.Level

// LineError is artifact.LineError (moved there; this alias goes once every caller says artifact).
type LineError = artifact.LineError

// LineReader is artifact.LineReader (moved there; this alias goes once every caller says artifact).
type LineReader = artifact.LineReader

// LineSizeOption is artifact.LineSizeOption (moved there; this alias goes once every caller says artifact).
type LineSizeOption = artifact.LineSizeOption

// LogRecord is artifact.LogRecord (moved there; this alias goes once every caller says artifact).
type LogRecord = artifact.LogRecord

// Meta is artifact.Meta (moved there; this alias goes once every caller says artifact).
type Meta = artifact.Meta

// ReadStats is artifact.ReadStats (moved there; this alias goes once every caller says artifact).
type ReadStats = artifact.ReadStats

// Reader is artifact.Reader (moved there; this alias goes once every caller says artifact).
type Reader = artifact.Reader

// ReaderOption is artifact.ReaderOption (moved there; this alias goes once every caller says artifact).
type ReaderOption = artifact.ReaderOption

// Record is artifact.Record (moved there; this alias goes once every caller says artifact).
type Record = artifact.Record

// SpanKey is artifact.SpanKey (moved there; this alias goes once every caller says artifact).
type SpanKey = artifact.SpanKey

// SpanRedactor is artifact.SpanRedactor (moved there; this alias goes once every caller says artifact).
type SpanRedactor = artifact.SpanRedactor

// Summary is artifact.Summary (moved there; this alias goes once every caller says artifact).
type Summary = artifact.Summary

// Tally is artifact.Tally (moved there; this alias goes once every caller says artifact).
type Tally = artifact.Tally

// Tokens is artifact.Tokens (moved there; this alias goes once every caller says artifact).
type Tokens = artifact.Tokens

// Writer is artifact.Writer (moved there; this alias goes once every caller says artifact).
type Writer = artifact.Writer

// WriterOption is artifact.WriterOption (moved there; this alias goes once every caller says artifact).
type WriterOption = artifact.WriterOption

// CostArray is artifact.CostArray (moved there; this alias goes once every caller says artifact).
const CostArray = artifact.CostArray

// CostKVList is artifact.CostKVList (moved there; this alias goes once every caller says artifact).
const CostKVList = artifact.CostKVList

// DefaultMaxLineSize is artifact.DefaultMaxLineSize (moved there; this alias goes once every caller says artifact).
const DefaultMaxLineSize = artifact.DefaultMaxLineSize

// DefaultWarnThreshold is artifact.DefaultWarnThreshold (moved there; this alias goes once every caller says artifact).
const DefaultWarnThreshold = artifact.DefaultWarnThreshold

// KindLog is artifact.KindLog (moved there; this alias goes once every caller says artifact).
const KindLog = artifact.KindLog

// MaxValueCost is artifact.MaxValueCost (moved there; this alias goes once every caller says artifact).
const MaxValueCost = artifact.MaxValueCost

// Producer is artifact.Producer (moved there; this alias goes once every caller says artifact).
const Producer = artifact.Producer

// TruncatedPrefix is artifact.TruncatedPrefix (moved there; this alias goes once every caller says artifact).
const TruncatedPrefix = artifact.TruncatedPrefix

// Version is artifact.Version (moved there; this alias goes once every caller says artifact).
const Version = artifact.Version

// ErrBadRecord is artifact.ErrBadRecord (moved there; this alias goes once every caller says artifact).
var ErrBadRecord = artifact.ErrBadRecord

// ErrClosed is artifact.ErrClosed (moved there; this alias goes once every caller says artifact).
var ErrClosed = artifact.ErrClosed

// ErrLineTooLong is artifact.ErrLineTooLong (moved there; this alias goes once every caller says artifact).
var ErrLineTooLong = artifact.ErrLineTooLong

// ErrNoHeader is artifact.ErrNoHeader (moved there; this alias goes once every caller says artifact).
var ErrNoHeader = artifact.ErrNoHeader

// ErrNotHeader is artifact.ErrNotHeader (moved there; this alias goes once every caller says artifact).
var ErrNotHeader = artifact.ErrNotHeader

// ErrTornLine is artifact.ErrTornLine (moved there; this alias goes once every caller says artifact).
var ErrTornLine = artifact.ErrTornLine

// ErrUnsupportedVersion is artifact.ErrUnsupportedVersion (moved there; this alias goes once every caller says artifact).
var ErrUnsupportedVersion = artifact.ErrUnsupportedVersion

// AppendJSONString is artifact.AppendJSONString (moved there; this alias goes once every caller says artifact).
var AppendJSONString = artifact.AppendJSONString

// AppendMeta is artifact.AppendMeta (moved there; this alias goes once every caller says artifact).
func AppendMeta(dst []byte, m *Meta) []byte { return artifact.AppendMeta(dst, m) }

// AppendRecords is artifact.AppendRecords (moved there; this alias goes once every caller says artifact).
var AppendRecords = artifact.AppendRecords

// AppendSummary is artifact.AppendSummary (moved there; this alias goes once every caller says artifact).
func AppendSummary(dst []byte, s *Summary) []byte { return artifact.AppendSummary(dst, s) }

// BudgetAttrs is artifact.BudgetAttrs (moved there; this alias goes once every caller says artifact).
func BudgetAttrs(attrs pcommon.Map) (tokens int64, usd float64) { return artifact.BudgetAttrs(attrs) }

// CallEstimate is artifact.CallEstimate (moved there; this alias goes once every caller says artifact).
var CallEstimate = artifact.CallEstimate

// ContentSize is artifact.ContentSize (moved there; this alias goes once every caller says artifact).
var ContentSize = artifact.ContentSize

// DecodeHeader is artifact.DecodeHeader (moved there; this alias goes once every caller says artifact).
var DecodeHeader = artifact.DecodeHeader

// Failed is artifact.Failed (moved there; this alias goes once every caller says artifact).
var Failed = artifact.Failed

// IsLocalRoot is artifact.IsLocalRoot (moved there; this alias goes once every caller says artifact).
func IsLocalRoot(sp ptrace.Span) bool { return artifact.IsLocalRoot(sp) }

// JudgedBudget is artifact.JudgedBudget (moved there; this alias goes once every caller says artifact).
var JudgedBudget = artifact.JudgedBudget

// LogRecords is artifact.LogRecords (moved there; this alias goes once every caller says artifact).
var LogRecords = artifact.LogRecords

// MapTooDeep is artifact.MapTooDeep (moved there; this alias goes once every caller says artifact).
var MapTooDeep = artifact.MapTooDeep

// MetaFor is artifact.MetaFor (moved there; this alias goes once every caller says artifact).
var MetaFor = artifact.MetaFor

// NewLineReader is artifact.NewLineReader (moved there; this alias goes once every caller says artifact).
var NewLineReader = artifact.NewLineReader

// NewMeta is artifact.NewMeta (moved there; this alias goes once every caller says artifact).
func NewMeta(startedAt time.Time) *Meta { return artifact.NewMeta(startedAt) }

// NewReader is artifact.NewReader (moved there; this alias goes once every caller says artifact).
var NewReader = artifact.NewReader

// NewWriter is artifact.NewWriter (moved there; this alias goes once every caller says artifact).
var NewWriter = artifact.NewWriter

// Records is artifact.Records (moved there; this alias goes once every caller says artifact).
var Records = artifact.Records

// Settle is artifact.Settle (moved there; this alias goes once every caller says artifact).
var Settle = artifact.Settle

// SortLogs is artifact.SortLogs (moved there; this alias goes once every caller says artifact).
var SortLogs = artifact.SortLogs

// SortRecords is artifact.SortRecords (moved there; this alias goes once every caller says artifact).
var SortRecords = artifact.SortRecords

// ToLogs is artifact.ToLogs (moved there; this alias goes once every caller says artifact).
var ToLogs = artifact.ToLogs

// ToTraces is artifact.ToTraces (moved there; this alias goes once every caller says artifact).
var ToTraces = artifact.ToTraces

// TokensOf is artifact.TokensOf (moved there; this alias goes once every caller says artifact).
var TokensOf = artifact.TokensOf

// Truncated is artifact.Truncated (moved there; this alias goes once every caller says artifact).
var Truncated = artifact.Truncated

// UnixNano is artifact.UnixNano (moved there; this alias goes once every caller says artifact).
func UnixNano(ns uint64) time.Time { return artifact.UnixNano(ns) }

// UsageLevels is artifact.UsageLevels (moved there; this alias goes once every caller says artifact).
var UsageLevels = artifact.UsageLevels

// ValidUSD is artifact.ValidUSD (moved there; this alias goes once every caller says artifact).
var ValidUSD = artifact.ValidUSD

// ValueTooDeep is artifact.ValueTooDeep (moved there; this alias goes once every caller says artifact).
var ValueTooDeep = artifact.ValueTooDeep

// WithInFlight is artifact.WithInFlight (moved there; this alias goes once every caller says artifact).
var WithInFlight = artifact.WithInFlight

// WithLogs is artifact.WithLogs (moved there; this alias goes once every caller says artifact).
var WithLogs = artifact.WithLogs

// WithMaxLineSize is artifact.WithMaxLineSize (moved there; this alias goes once every caller says artifact).
var WithMaxLineSize = artifact.WithMaxLineSize

// WithProblemHandler is artifact.WithProblemHandler (moved there; this alias goes once every caller says artifact).
var WithProblemHandler = artifact.WithProblemHandler

// WithSource is artifact.WithSource (moved there; this alias goes once every caller says artifact).
var WithSource = artifact.WithSource
