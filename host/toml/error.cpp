#include "host/toml/error.hpp"

#include "host/util/spelling.hpp"

namespace caldera::input {

std::string error_text(const SourceRef& at, std::string_view object, std::string_view problem,
                       std::string_view expected) {
  std::string text = at.str();
  if (!text.empty()) text += ": ";
  if (!object.empty()) {
    text += object;
    text += ": ";
  }
  text += problem;
  if (!expected.empty()) {
    text += "; expected ";
    text += expected;
  }
  return text;
}

void fail(const SourceRef& at, std::string_view object, std::string_view problem,
          std::string_view expected) {
  throw InputError(error_text(at, object, problem, expected));
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& known) {
  std::string guess = closest_word(word, known);
  return guess.empty() ? std::string() : " (did you mean '" + guess + "'?)";
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

}  // namespace caldera::input
