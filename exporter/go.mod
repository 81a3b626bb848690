module github.com/agenttrace/agenttrace/exporter

go 1.26.0

replace github.com/agenttrace/agenttrace => ../

require (
	github.com/agenttrace/agenttrace v0.0.0-00010101000000-000000000000
	github.com/stretchr/testify v1.12.1
	go.opentelemetry.io/collector/component v1.68.0
	go.opentelemetry.io/collector/component/componenttest v0.162.0
	go.opentelemetry.io/collector/config/configoptional v1.68.0
	go.opentelemetry.io/collector/config/configretry v1.68.0
	go.opentelemetry.io/collector/confmap v1.68.0
	go.opentelemetry.io/collector/consumer v1.68.0
	go.opentelemetry.io/collector/consumer/consumererror v0.162.0
	go.opentelemetry.io/collector/consumer/consumertest v0.162.0
	go.opentelemetry.io/collector/exporter v1.68.0
	go.opentelemetry.io/collector/exporter/exporterhelper v0.162.0
	go.opentelemetry.io/collector/exporter/exportertest v0.162.0
	go.opentelemetry.io/collector/extension v1.68.0
	go.opentelemetry.io/collector/extension/extensionmiddleware v0.162.0
	go.opentelemetry.io/collector/extension/extensiontest v0.162.0
	go.opentelemetry.io/collector/pdata v1.68.0
	go.opentelemetry.io/collector/processor v1.68.0
	go.opentelemetry.io/collector/processor/processorhelper v0.162.0
	go.opentelemetry.io/collector/processor/processortest v0.162.0
	go.opentelemetry.io/otel v1.47.0
	go.opentelemetry.io/otel/metric v1.47.0
	go.opentelemetry.io/otel/sdk v1.47.0
	go.opentelemetry.io/otel/sdk/metric v1.47.0
	go.opentelemetry.io/otel/trace v1.47.0
	go.uber.org/goleak v1.3.0
	go.uber.org/zap v1.28.0
	google.golang.org/grpc v1.83.2
)

require (
	github.com/andybalholm/brotli v1.3.0 // indirect
	github.com/cenkalti/backoff/v7 v7.0.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dlclark/regexp2 v1.12.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/gobwas/glob v0.2.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/go-version v1.9.0 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/knadh/koanf/maps v0.1.3 // indirect
	github.com/knadh/koanf/providers/confmap v1.0.1 // indirect
	github.com/knadh/koanf/v2 v2.3.6 // indirect
	github.com/mitchellh/copystructure v1.2.0 // indirect
	github.com/mitchellh/reflectwalk v1.0.2 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.3-0.20250322232337-35a7c28c31ee // indirect
	github.com/parquet-go/bitpack v1.0.3 // indirect
	github.com/parquet-go/jsonlite v1.5.5 // indirect
	github.com/parquet-go/parquet-go v0.32.1 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/twpayne/go-geom v1.6.1 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/collector/client v1.68.0 // indirect
	go.opentelemetry.io/collector/component/componentstatus v0.162.0 // indirect
	go.opentelemetry.io/collector/consumer/xconsumer v0.162.0 // indirect
	go.opentelemetry.io/collector/exporter/xexporter v0.162.0 // indirect
	go.opentelemetry.io/collector/extension/xextension v0.162.0 // indirect
	go.opentelemetry.io/collector/featuregate v1.68.0 // indirect
	go.opentelemetry.io/collector/internal/componentalias v0.162.0 // indirect
	go.opentelemetry.io/collector/pdata/pprofile v0.162.0 // indirect
	go.opentelemetry.io/collector/pdata/testdata v0.162.0 // indirect
	go.opentelemetry.io/collector/pdata/xpdata v0.162.0 // indirect
	go.opentelemetry.io/collector/pipeline v1.68.0 // indirect
	go.opentelemetry.io/collector/pipeline/xpipeline v0.162.0 // indirect
	go.opentelemetry.io/collector/processor/xprocessor v0.162.0 // indirect
	go.opentelemetry.io/collector/receiver v1.68.0 // indirect
	go.opentelemetry.io/collector/receiver/receivertest v0.162.0 // indirect
	go.opentelemetry.io/collector/receiver/xreceiver v0.162.0 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/sdk/log v1.47.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/net v0.59.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260928230214-8a89bd6388cc // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
