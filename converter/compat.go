package converter

import "github.com/agenttrace/agenttrace/artifact"

// The artifact format's types and line encoding moved to package artifact
// (issue 27). These names keep callers compiling for one step.

// Deprecated: use artifact.Budget.
type Budget = artifact.Budget

// Deprecated: use artifact.BudgetStatus.
type BudgetStatus = artifact.BudgetStatus

// Deprecated: use artifact.CostBudget.
type CostBudget = artifact.CostBudget

// Deprecated: use artifact.Encoder.
type Encoder = artifact.Encoder

// Deprecated: use artifact.Level.
type Level = artifact.Level

// Deprecated: use artifact.LineError.
type LineError = artifact.LineError

// Deprecated: use artifact.LineReader.
type LineReader = artifact.LineReader

// Deprecated: use artifact.LineSizeOption.
type LineSizeOption = artifact.LineSizeOption

// Deprecated: use artifact.LogRecord.
type LogRecord = artifact.LogRecord

// Deprecated: use artifact.Meta.
type Meta = artifact.Meta

// Deprecated: use artifact.ReadStats.
type ReadStats = artifact.ReadStats

// Deprecated: use artifact.Reader.
type Reader = artifact.Reader

// Deprecated: use artifact.ReaderOption.
type ReaderOption = artifact.ReaderOption

// Deprecated: use artifact.Record.
type Record = artifact.Record

// Deprecated: use artifact.SpanKey.
type SpanKey = artifact.SpanKey

// Deprecated: use artifact.SpanRedactor.
type SpanRedactor = artifact.SpanRedactor

// Deprecated: use artifact.Summary.
type Summary = artifact.Summary

// Deprecated: use artifact.Tally.
type Tally = artifact.Tally

// Deprecated: use artifact.Tokens.
type Tokens = artifact.Tokens

// Deprecated: use artifact.Writer.
type Writer = artifact.Writer

// Deprecated: use artifact.WriterOption.
type WriterOption = artifact.WriterOption

// Deprecated: use artifact.CostArray.
const CostArray = artifact.CostArray

// Deprecated: use artifact.CostKVList.
const CostKVList = artifact.CostKVList

// Deprecated: use artifact.DefaultMaxLineSize.
const DefaultMaxLineSize = artifact.DefaultMaxLineSize

// Deprecated: use artifact.DefaultWarnThreshold.
const DefaultWarnThreshold = artifact.DefaultWarnThreshold

// Deprecated: use artifact.KindLog.
const KindLog = artifact.KindLog

// Deprecated: use artifact.MaxValueCost.
const MaxValueCost = artifact.MaxValueCost

// Deprecated: use artifact.Producer.
const Producer = artifact.Producer

// Deprecated: use artifact.TruncatedPrefix.
const TruncatedPrefix = artifact.TruncatedPrefix

// Deprecated: use artifact.Version.
const Version = artifact.Version

// Deprecated: use artifact.ErrBadRecord.
var ErrBadRecord = artifact.ErrBadRecord

// Deprecated: use artifact.ErrClosed.
var ErrClosed = artifact.ErrClosed

// Deprecated: use artifact.ErrLineTooLong.
var ErrLineTooLong = artifact.ErrLineTooLong

// Deprecated: use artifact.ErrNoHeader.
var ErrNoHeader = artifact.ErrNoHeader

// Deprecated: use artifact.ErrNotHeader.
var ErrNotHeader = artifact.ErrNotHeader

// Deprecated: use artifact.ErrTornLine.
var ErrTornLine = artifact.ErrTornLine

// Deprecated: use artifact.ErrUnsupportedVersion.
var ErrUnsupportedVersion = artifact.ErrUnsupportedVersion

// Deprecated: use artifact.AppendJSONString.
var AppendJSONString = artifact.AppendJSONString

// Deprecated: use artifact.AppendMeta.
var AppendMeta = artifact.AppendMeta

// Deprecated: use artifact.AppendRecords.
var AppendRecords = artifact.AppendRecords

// Deprecated: use artifact.AppendSummary.
var AppendSummary = artifact.AppendSummary

// Deprecated: use artifact.BudgetAttrs.
var BudgetAttrs = artifact.BudgetAttrs

// Deprecated: use artifact.CallEstimate.
var CallEstimate = artifact.CallEstimate

// Deprecated: use artifact.ContentSize.
var ContentSize = artifact.ContentSize

// Deprecated: use artifact.DecodeHeader.
var DecodeHeader = artifact.DecodeHeader

// Deprecated: use artifact.Failed.
var Failed = artifact.Failed

// Deprecated: use artifact.IsLocalRoot.
var IsLocalRoot = artifact.IsLocalRoot

// Deprecated: use artifact.JudgedBudget.
var JudgedBudget = artifact.JudgedBudget

// Deprecated: use artifact.LogRecords.
var LogRecords = artifact.LogRecords

// Deprecated: use artifact.MapTooDeep.
var MapTooDeep = artifact.MapTooDeep

// Deprecated: use artifact.MetaFor.
var MetaFor = artifact.MetaFor

// Deprecated: use artifact.NewLineReader.
var NewLineReader = artifact.NewLineReader

// Deprecated: use artifact.NewMeta.
var NewMeta = artifact.NewMeta

// Deprecated: use artifact.NewReader.
var NewReader = artifact.NewReader

// Deprecated: use artifact.NewWriter.
var NewWriter = artifact.NewWriter

// Deprecated: use artifact.Records.
var Records = artifact.Records

// Deprecated: use artifact.Settle.
var Settle = artifact.Settle

// Deprecated: use artifact.SortLogs.
var SortLogs = artifact.SortLogs

// Deprecated: use artifact.SortRecords.
var SortRecords = artifact.SortRecords

// Deprecated: use artifact.ToLogs.
var ToLogs = artifact.ToLogs

// Deprecated: use artifact.ToTraces.
var ToTraces = artifact.ToTraces

// Deprecated: use artifact.TokensOf.
var TokensOf = artifact.TokensOf

// Deprecated: use artifact.Truncated.
var Truncated = artifact.Truncated

// Deprecated: use artifact.UnixNano.
var UnixNano = artifact.UnixNano

// Deprecated: use artifact.UsageLevels.
var UsageLevels = artifact.UsageLevels

// Deprecated: use artifact.ValidUSD.
var ValidUSD = artifact.ValidUSD

// Deprecated: use artifact.ValueTooDeep.
var ValueTooDeep = artifact.ValueTooDeep

// Deprecated: use artifact.WithInFlight.
var WithInFlight = artifact.WithInFlight

// Deprecated: use artifact.WithLogs.
var WithLogs = artifact.WithLogs

// Deprecated: use artifact.WithMaxLineSize.
var WithMaxLineSize = artifact.WithMaxLineSize

// Deprecated: use artifact.WithProblemHandler.
var WithProblemHandler = artifact.WithProblemHandler

// Deprecated: use artifact.WithSource.
var WithSource = artifact.WithSource
