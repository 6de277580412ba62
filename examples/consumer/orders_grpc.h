// The one line that makes gRPC parse shop.Order requests with pbaccel (its generated parser).
// cc_grpc_library's additional_header_includes (BUILD) makes the generated orders.grpc.pb.h
// include this header, so the generated service code sees it.

#ifndef ORDERS_GRPC_H_
#define ORDERS_GRPC_H_

#include "orders.pb.h"
#include "orders.pbaccel.h"
#include "pbaccel/grpc.h"

PBACCEL_GRPC_USE_FOR(shop::Order);

#endif  // ORDERS_GRPC_H_
