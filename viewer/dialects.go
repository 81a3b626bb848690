package viewer

import (
	"encoding/json"
	"sync"

	"github.com/agenttrace/agenttrace/semconv"
)

// dialectTable is the JSON the page embeds in
// <script type="application/json" id="at-dialects">: semconv's dialect
// table, which assets/ingest.js follows to lift GenAI attributes into
// record fields, so the browser and Go promote the same attributes without
// a hand-kept copy. Version says which shape ingest.js must understand;
// bump it with ingest.js when the shape changes.
type dialectTable struct {
	Version int                 `json:"version"`
	Fields  []semconv.FieldInfo `json:"fields"`
}

// dialectsJSON returns the table's JSON, computed once. encoding/json
// writes "<", ">" and "&" as \u escapes, so the bytes can stand inside a
// script element as they are.
var dialectsJSON = sync.OnceValue(func() []byte {
	b, err := json.Marshal(dialectTable{Version: 1, Fields: semconv.Table()})
	if err != nil {
		// Strings and slices of strings always marshal.
		panic("viewer: dialect table: " + err.Error())
	}
	return b
})
