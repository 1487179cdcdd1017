/// @file Defines cli::Parser, the command-line parser of every bench program: each program declares
/// its options (name, help, target), then parses argv once. Every argument must be a declared
/// option, every value must be present and read entirely (std::from_chars: "5x", "", "abc", an
/// overflow or a number out of range are errors). `--help` prints the usage to standard output and
/// gives status 0; an error prints "PROGRAM: <what is wrong>" and the usage to standard error and
/// gives status 2. MPI programs parse after MPI_Init, let rank 0 alone speak, and return the status
/// from main on every rank (argv is the same on every rank, so the result is too).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace redist::bench::cli {

/// All of `text` as an integer in [min, max], or nothing (empty, trailing characters, overflow, out of range).
template <std::integral T>
std::optional<T> to_integer(std::string_view text, T min, T max) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || stop != end || value < min || value > max) return std::nullopt;
  return value;
}

/// All of `text` as a finite double, or nothing.
inline std::optional<double> to_real(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || stop != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

/// The pieces of `text` between commas, empty ones included; none for an empty text.
inline std::vector<std::string_view> split(std::string_view text, char separator = ',') {
  std::vector<std::string_view> pieces;
  if (text.empty()) return pieces;
  for (std::size_t at = 0;;) {
    const std::size_t next = text.find(separator, at);
    pieces.push_back(text.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) return pieces;
    at = next + 1;
  }
}

/// ">= min", or "from min to max" where max is not T's largest.
template <std::integral T>
std::string range_text(T min, T max) {
  if (max == std::numeric_limits<T>::max()) return ">= " + std::to_string(min);
  return "from " + std::to_string(min) + " to " + std::to_string(max);
}

/// A program's options and their parsing; see the file comment.
class Parser {
public:
  /// `synopsis` follows the program's name on the usage line.
  explicit Parser(std::string program, std::string synopsis = "[options]")
      : program_(std::move(program)), synopsis_(std::move(synopsis)) {}

  /// `spec` is "--name" or "--name METAVAR"; `target` gets an integer in [min, max].
  template <std::integral T>
  Parser& integer(std::string_view spec, std::string help, T& target, T min = std::numeric_limits<T>::min(),
                  T max = std::numeric_limits<T>::max()) {
    return value(spec, "N", std::move(help), std::to_string(target), "an integer " + range_text(min, max),
                 [&target, min, max](std::string_view text) { return store(target, to_integer(text, min, max)); });
  }

  /// `target` gets a finite double.
  Parser& real(std::string_view spec, std::string help, double& target) {
    char shown[32];
    std::snprintf(shown, sizeof shown, "%g", target);
    return value(spec, "X", std::move(help), shown, "a number",
                 [&target](std::string_view text) { return store(target, to_real(text)); });
  }

  /// `target` gets the value as it is.
  Parser& text(std::string_view spec, std::string help, std::string& target) {
    return value(spec, "TEXT", std::move(help), target, "a value", [&target](std::string_view text) {
      target = text;
      return true;
    });
  }

  /// `target` gets the integers of a comma-separated list of at least one, each in [min, max].
  template <std::integral T>
  Parser& integers(std::string_view spec, std::string help, std::vector<T>& target, T min = std::numeric_limits<T>::min(),
                   T max = std::numeric_limits<T>::max()) {
    std::string shown;
    for (const T& x : target) shown += (shown.empty() ? "" : ",") + std::to_string(x);
    return value(spec, "N,N,...", std::move(help), shown,
                 "a comma-separated list of integers " + range_text(min, max),
                 [&target, min, max](std::string_view text) {
                   std::vector<T> read;
                   for (std::string_view piece : split(text))
                     if (!store(read.emplace_back(), to_integer(piece, min, max))) return false;
                   if (read.empty()) return false;
                   target = std::move(read);
                   return true;
                 });
  }

  /// `target` gets the non-empty items of a comma-separated list, added to those of the option's
  /// earlier occurrences.
  Parser& words(std::string_view spec, std::string help, std::vector<std::string>& target) {
    return value(spec, "A,B,...", std::move(help), {}, "a comma-separated list", [&target](std::string_view text) {
      for (std::string_view piece : split(text))
        if (!piece.empty()) target.emplace_back(piece);
      return true;
    });
  }

  /// `target` gets one more value each time the option is given.
  Parser& repeated(std::string_view spec, std::string help, std::vector<std::string>& target) {
    return value(spec, "TEXT", std::move(help) + " (repeatable)", {}, "a value", [&target](std::string_view text) {
      target.emplace_back(text);
      return true;
    });
  }

  /// An option without a value that sets `target` to `set`.
  Parser& flag(std::string_view name, std::string help, bool& target, bool set = true) {
    return flag(name, std::move(help), [&target, set] { target = set; });
  }

  /// An option without a value that calls `act` where it is given.
  Parser& flag(std::string_view name, std::string help, std::function<void()> act) {
    options_.push_back({std::string(name), {}, std::move(help), {}, {}, false,
                        [act = std::move(act)](std::string_view) {
                          act();
                          return true;
                        }});
    return *this;
  }

  /// An option whose value `set` reads, returning false for a bad one; `expected` says what a good
  /// one is ("a comma-separated list of S:T pairs"), `shown` the default.
  Parser& value(std::string_view spec, std::string_view metavar, std::string help, std::string shown,
                std::string expected, std::function<bool(std::string_view)> set) {
    const std::size_t space = spec.find(' ');
    options_.push_back({std::string(spec.substr(0, space)),
                        std::string(space == std::string_view::npos ? metavar : spec.substr(space + 1)),
                        std::move(help), std::move(shown), std::move(expected), true, std::move(set)});
    return *this;
  }

  /// Parses argv: nothing to go on, or the status to return from main (0 after --help, 2 after an
  /// error), having printed the usage or the error where `speak` (rank 0 of an MPI program).
  std::optional<int> parse(int argc, char** argv, bool speak = true) const {
    for (int i = 1; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (arg == "--help") {
        if (speak) std::fputs(usage().c_str(), stdout);
        return 0;
      }
      const Option* option = find(arg);
      if (option == nullptr)
        return fail((arg.starts_with('-') ? "unknown option '" : "unexpected argument '") + std::string(arg) + "'", speak);
      if (!option->takes_value) {
        option->set({});
        continue;
      }
      if (i + 1 >= argc) return fail(option->name + " needs " + option->expected + " after it", speak);
      const std::string_view text = argv[++i];
      if (!option->set(text))
        return fail(option->name + " needs " + option->expected + ", not '" + std::string(text) + "'", speak);
    }
    return std::nullopt;
  }

  /// parse, for a program without MPI: exits with the status unless there is nothing to report.
  void parse_or_exit(int argc, char** argv) const {
    if (const std::optional<int> status = parse(argc, argv)) std::exit(*status);
  }

  /// Prints "PROGRAM: message" and the usage to standard error where `speak`; returns 2, the
  /// status of a usage error (for what a program checks after parsing).
  int fail(const std::string& message, bool speak = true) const {
    if (speak) std::fprintf(stderr, "%s: %s\n%s", program_.c_str(), message.c_str(), usage().c_str());
    return 2;
  }

  /// "usage: PROGRAM SYNOPSIS", then one line per option: its name, value, help and default.
  std::string usage() const {
    std::vector<Option> listed = options_;
    listed.push_back({"--help", {}, "print this and exit", {}, {}, false, {}});
    std::size_t width = 0;
    for (const Option& o : listed) width = std::max(width, heading(o).size());
    std::string out = "usage: " + program_ + " " + synopsis_ + "\n";
    for (const Option& o : listed) {
      std::string line = "  " + heading(o);
      line.append(width + 4 - line.size(), ' ');
      line += o.help;
      if (!o.shown.empty()) line += " (default " + o.shown + ")";
      out += line + "\n";
    }
    return out;
  }

private:
  struct Option {
    std::string name, metavar, help, shown, expected;
    bool takes_value = true;
    std::function<bool(std::string_view)> set;
  };

  /// Stores a read value in target; false if there is none.
  template <class T>
  static bool store(T& target, const std::optional<T>& read) {
    if (read) target = *read;
    return read.has_value();
  }

  static std::string heading(const Option& o) { return o.metavar.empty() ? o.name : o.name + " " + o.metavar; }

  const Option* find(std::string_view name) const {
    const auto it = std::find_if(options_.begin(), options_.end(), [&](const Option& o) { return o.name == name; });
    return it == options_.end() ? nullptr : &*it;
  }

  std::string program_, synopsis_;
  std::vector<Option> options_;
};

}  // namespace redist::bench::cli
