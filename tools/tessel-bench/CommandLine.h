//===- CommandLine.h - Argument parsing shared by the bench tools -*- C++
//-*-===//

#ifndef TESSEL_TOOLS_TESSEL_BENCH_COMMANDLINE_H
#define TESSEL_TOOLS_TESSEL_BENCH_COMMANDLINE_H

namespace tessel::bench {

/// Parses all of `text` as a decimal integer >= `minimum` into `out`;
/// returns false (leaving `out` alone) otherwise.
bool parseLong(const char *text, long minimum, long &out);

/// Parses all of `text` as a decimal number in [`minimum`, `maximum`] into
/// `out`; returns false (leaving `out` alone) otherwise.
bool parseDouble(const char *text, double minimum, double maximum, double &out);

} // namespace tessel::bench

#endif // TESSEL_TOOLS_TESSEL_BENCH_COMMANDLINE_H
