#!/bin/sh
# The example server (//examples:feature_server) has pbaccel in its request path: the unary
# handlers' deserializer is pbaccel's SerializationTraits<MessageLite> (a strong definition, "T",
# not gRPC's inline one), and the generated parsers of its pbaccel request types are linked.
# Argument: the server binary.
set -u
server=$1
symbols=$(nm -C --defined-only "$server") || { echo "FAIL: nm $server"; exit 1; }
status=0
expect() {  # expect PATTERN WHAT
  if echo "$symbols" | grep -qE "$1"; then
    echo "ok: $2"
  else
    echo "FAIL: $server lacks $2 ($1)"
    status=1
  fi
}
expect ' T grpc::SerializationTraits<google::protobuf::MessageLite, void>::Deserialize\(' \
  "pbaccel's deserializer for gRPC's unary handlers"
expect ' pbaccel::grpc_internal::RegisterRequestType\(' "the registry of PBACCEL_GRPC_USE_FOR types"
expect ' pbaccel::gen::MergeFields\(char const\*, char const\*, pbaccel::examples::FeatureBatch\*' \
  "FeatureBatch's generated parser"
expect ' pbaccel::gen::MergeFields\(char const\*, char const\*, vector_tile::Tile\*' \
  "vector_tile.Tile's generated parser"
exit $status
