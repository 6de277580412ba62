// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/field_errors.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace pbaccel {
namespace internal {

std::string FieldLabel(const google::protobuf::Descriptor* type, uint32_t number) {
  const auto* f = type->FindFieldByNumber(static_cast<int>(number));
  if (f == nullptr && type->IsExtensionNumber(static_cast<int>(number))) {
    f = type->file()->pool()->FindExtensionByNumber(type, static_cast<int>(number));
  }
  if (f != nullptr) return absl::StrCat(f->full_name(), " (field ", number, ")");
  return absl::StrCat("field ", number, " of ", type->full_name());
}

std::string FieldLabel(const google::protobuf::MessageLite& msg, uint32_t number) {
  if (const auto* full = dynamic_cast<const google::protobuf::Message*>(&msg)) {
    return FieldLabel(full->GetDescriptor(), number);
  }
  return absl::StrCat("field ", number, " of ", msg.GetTypeName());
}

std::string WireErrorAt(WireError error, const google::protobuf::MessageLite& msg,
                        uint32_t number) {
  if (IsTagError(error)) return WireErrorText(error);
  return absl::StrCat(WireErrorText(error), " in ", FieldLabel(msg, number));
}

absl::Status MissingRequiredFields(const google::protobuf::MessageLite& msg) {
  return absl::InvalidArgumentError(absl::StrCat(
      msg.GetTypeName(), ": missing required fields: ", msg.InitializationErrorString()));
}

}  // namespace internal
}  // namespace pbaccel
