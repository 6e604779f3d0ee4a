// Kubernetes quantities, parsed as k8s.io/apimachinery/pkg/api/resource/quantity.go does
// (parseQuantityString, ParseQuantity, quantitySuffixer.interpret) and counted as Volcano's
// NewResource counts them (pkg/scheduler/api/resource_info.go): cpu by MilliValue(),
// memory and pods by Value(), every other resource by MilliValue().
//
// Grammar accepted:   [+-] digits [. digits] suffix     (or [+-] . digits suffix)
//   suffix: ""  | n u m k M G T P E          (decimal SI)
//               | Ki Mi Gi Ti Pi Ei          (binary SI)
//               | e<int> | E<int>            (decimal exponent, e.g. "1e3", "5E-3")
// Kubernetes is lax in two places that we deliberately tighten, because in a scenario they
// are always typos: a number part with no digit at all ("m", ".", "Gi" parse as 0 in Go)
// is rejected. "1." and ".5" stay accepted, as Go accepts them.
//
// Value() and MilliValue() round a fraction up (away from zero), so "0.5" memory is 1
// byte and "0.1m" cpu is 1 millicore. We compute that exactly in integers (the digits,
// a power of ten and a power of two) rather than in floating point, where "1.1" * 1000
// would come out as 1100.0000000000002 and round up to 1101.
#include "host/model/quantity.hpp"

#include <cmath>
#include <cstdint>
#include <fmt/format.h>

namespace caldera {
namespace {

// A parsed quantity: sign * digits * 10^dec_exp * 2^bin_exp.
struct Parsed {
  bool negative = false;
  std::string digits;  // integer and fraction digits joined, leading zeros stripped
  int dec_exp = 0;     // includes minus the number of fraction digits
  int bin_exp = 0;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The suffix's base and exponent, as quantitySuffixer.interpret.
bool interpret_suffix(const std::string& s, int& dec_exp, int& bin_exp) {
  static const struct {
    const char* s;
    int dec, bin;
  } table[] = {
      {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},
      {"M", 6, 0},   {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},
      {"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50},
      {"Ei", 0, 60},
  };
  for (const auto& e : table) {
    if (s == e.s) {
      dec_exp = e.dec;
      bin_exp = e.bin;
      return true;
    }
  }
  // Decimal exponent: 'e' or 'E' and a signed integer ("E" alone is exa, above).
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    size_t i = 1;
    bool neg = false;
    if (s[i] == '+' || s[i] == '-') neg = s[i++] == '-';
    if (i == s.size()) return false;
    long v = 0;
    for (; i < s.size(); ++i) {
      if (!is_digit(s[i])) return false;
      v = v * 10 + (s[i] - '0');
      // Anything beyond this is outside every range a resource can have; Go would
      // overflow int32 here too.
      if (v > 1000) return false;
    }
    dec_exp = neg ? -static_cast<int>(v) : static_cast<int>(v);
    bin_exp = 0;
    return true;
  }
  return false;
}

std::optional<Parsed> parse(const std::string& text) {
  Parsed p;
  size_t i = 0, n = text.size();
  if (i < n && (text[i] == '+' || text[i] == '-')) p.negative = text[i++] == '-';
  std::string whole, frac;
  while (i < n && is_digit(text[i])) whole += text[i++];
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && is_digit(text[i])) frac += text[i++];
  }
  if (whole.empty() && frac.empty()) return std::nullopt;  // "m", ".", "", "-Gi"
  int dec = 0, bin = 0;
  if (!interpret_suffix(text.substr(i), dec, bin)) return std::nullopt;  // "4GB", "1.2.3"
  std::string digits = whole + frac;
  size_t nz = digits.find_first_not_of('0');
  p.digits = nz == std::string::npos ? std::string() : digits.substr(nz);
  // Trailing zeros move into the exponent, so the digit string stays short.
  while (!p.digits.empty() && p.digits.back() == '0') {
    p.digits.pop_back();
    ++dec;
  }
  p.dec_exp = dec - static_cast<int>(frac.size());
  p.bin_exp = bin;
  return p;
}

double approximate(const Parsed& p) {
  if (p.digits.empty()) return 0;
  long double v = std::strtold(p.digits.c_str(), nullptr);
  v *= std::pow(10.0L, p.dec_exp);
  v = std::ldexp(v, p.bin_exp);
  return static_cast<double>(p.negative ? -v : v);
}

// ceil(|value| * 10^scale) with the sign put back: Quantity.Value() (scale 0) and
// MilliValue() (scale 3), which round away from zero.
double scaled_round_up(const Parsed& p, int scale) {
  if (p.digits.empty()) return 0;
  using u128 = unsigned __int128;
  const u128 limit = static_cast<u128>(1) << 120;
  int k = p.dec_exp + scale;
  bool exact = p.digits.size() <= 30;
  u128 num = 0;
  if (exact) {
    for (char c : p.digits) num = num * 10 + static_cast<unsigned>(c - '0');
    for (int b = 0; b < p.bin_exp && exact; ++b) {
      num <<= 1;
      exact = num < limit;
    }
    for (int d = 0; d < k && exact; ++d) {
      num *= 10;
      exact = num < limit;
    }
  }
  if (exact && k < 0) {
    if (-k > 36) {
      num = 1;  // a positive amount far below one unit rounds up to one
    } else {
      u128 div = 1;
      for (int d = 0; d < -k; ++d) div *= 10;
      num = num / div + (num % div != 0 ? 1 : 0);
    }
  }
  double v;
  if (exact) {
    v = static_cast<double>(num);
  } else {
    // Beyond 2^120: far past any real resource; a float is as good as it gets.
    long double x = std::strtold(p.digits.c_str(), nullptr);
    x = std::ldexp(x * std::pow(10.0L, k), p.bin_exp);
    v = static_cast<double>(std::ceil(x));
  }
  return p.negative ? -v : v;
}

}  // namespace

std::optional<double> parse_quantity(const std::string& text) {
  auto p = parse(text);
  if (!p) return std::nullopt;
  return approximate(*p);
}

std::optional<double> resource_amount(const std::string& resource, const std::string& text) {
  auto p = parse(text);
  if (!p) return std::nullopt;
  if (resource == "memory" || resource == "pods") return scaled_round_up(*p, 0);
  return scaled_round_up(*p, 3);  // cpu and every scalar resource: MilliValue()
}

std::string format_amount(const std::string& resource, double amount) {
  // Whole numbers print without a fraction; anything else keeps what precision it has.
  auto num = [](double v) {
    if (std::fabs(v) < 9.0e15 && v == std::floor(v)) return fmt::format("{}", static_cast<int64_t>(v));
    return fmt::format("{}", v);
  };
  if (resource == "memory") {
    if (amount == 0) return "0";
    static const struct {
      const char* suffix;
      double unit;
    } units[] = {{"Ei", 1152921504606846976.0}, {"Pi", 1125899906842624.0},
                 {"Ti", 1099511627776.0},       {"Gi", 1073741824.0},
                 {"Mi", 1048576.0},             {"Ki", 1024.0},
                 {"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}};
    for (const auto& u : units) {
      double q = amount / u.unit;
      if (std::fabs(q) >= 1 && q == std::floor(q)) return num(q) + u.suffix;
    }
    return num(amount);
  }
  if (resource == "pods") return num(amount);
  // cpu and scalars are held in milli-units: "2" for 2000, "1500m" for 1500.
  if (amount == std::floor(amount) && std::fmod(amount, 1000.0) == 0) return num(amount / 1000);
  return num(amount) + "m";
}

bool is_quota_name(const std::string& name) {
  return name.rfind("count/", 0) == 0 || name.rfind("requests.", 0) == 0 ||
         name.rfind("limits.", 0) == 0;
}

}  // namespace caldera
