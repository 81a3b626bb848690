// Package viewer renders agenttrace artifacts as one self-contained HTML
// page: inline CSS and JavaScript, the runs embedded as data, and a
// Content-Security-Policy that allows nothing else. It is what
// "agenttrace html" writes and "agenttrace serve" serves.
package viewer
