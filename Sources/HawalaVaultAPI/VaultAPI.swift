// The vault's HTTP API. `openapi.yaml` beside this file is the source of truth: the
// OpenAPIGenerator build plugin generates the types, the server protocol (`APIProtocol`) and
// the `Client` from it at build time (openapi-generator-config.yaml).
@_exported import OpenAPIRuntime
