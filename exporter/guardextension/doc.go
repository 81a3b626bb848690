// Package guardextension is agenttrace_guard, a collector extension that
// protects upstream's otlp receiver from requests pdata cannot decode
// safely. A request whose attribute value nests ~1.3 million levels (12.5
// MB, under every size limit) makes pdata's unmarshaler overflow the
// goroutine stack, and Go ends the whole process: one request would stop
// the collector for every client (open-telemetry/opentelemetry-collector
// issues 15301, 15603; agenttrace issue 22). The extension is a server
// middleware (extensionmiddleware) for both protocols:
//
//	receivers:
//	  otlp:
//	    protocols:
//	      grpc:
//	        middlewares: [{id: agenttrace_guard}]
//	      http:
//	        middlewares: [{id: agenttrace_guard}]
//	service:
//	  extensions: [agenttrace_guard]
//
// Over HTTP it reads the body confighttp has already decompressed and
// size-limited, checks it (converter.GuardOTLP, through internal/otlpguard)
// and answers 400 with a google.rpc.Status if it is refused. Over gRPC,
// where the message is decoded before any handler runs, it installs a
// codec that checks the bytes first, and an interceptor that answers a
// refused request InvalidArgument. The limit is the artifact reader's:
// whatever passes can be written and read back.
//
// It checks trace, log and metric requests.
package guardextension
