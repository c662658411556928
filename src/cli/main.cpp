// SPDX-License-Identifier: Apache-2.0
// The cudag executable: the command line of cli/app.hpp.
#include "cli/app.hpp"

int main(int argc, char** argv) { return cudag::cli::run(argc, argv); }
