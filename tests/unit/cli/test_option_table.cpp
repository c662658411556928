// SPDX-License-Identifier: Apache-2.0
// cli::option_table: each command's options as data, read from the CLI11 declarations that
// `cudag <command> --help` prints (the Python module's keywords take their type, default
// and meaning from it).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/option_table.hpp"
#include "core/error.hpp"

namespace {

using cudag::cli::OptionInfo;

const OptionInfo& find(const std::vector<OptionInfo>& table, const std::string& option) {
    const auto it =
        std::find_if(table.begin(), table.end(), [&option](const OptionInfo& o) { return o.option == option; });
    if (it == table.end()) throw std::runtime_error(option + " is not in the table");
    return *it;
}

TEST(OptionTable, PcOptionsCarryTypeDefaultAndMeaning) {
    const std::vector<OptionInfo> pc = cudag::cli::option_table("pc");
    const OptionInfo& alpha = find(pc, "--alpha");
    EXPECT_EQ(alpha.type, "float");
    EXPECT_EQ(alpha.default_value, "0.01");
    EXPECT_EQ(alpha.meaning, "significance level, in (0, 1)");
    EXPECT_FALSE(alpha.hidden);
    const OptionInfo& level = find(pc, "--max-level");
    EXPECT_EQ(level.type, "int");
    EXPECT_EQ(level.default_value, "-1");
    EXPECT_EQ(find(pc, "--discrete").type, "flag");
    EXPECT_EQ(find(pc, "--quiet").type, "flag");      // "-q,--quiet": the long name
    EXPECT_EQ(find(pc, "--test").default_value, "");  // no default shown: chosen from the data
    EXPECT_TRUE(find(pc, "--tune").hidden);
    EXPECT_TRUE(find(pc, "--stop-after-level").hidden);
    EXPECT_FALSE(find(pc, "--stop-after-level").meaning.empty());
    for (const OptionInfo& o : pc) {
        EXPECT_NE(o.option, "--help");
        EXPECT_FALSE(o.meaning.empty()) << o.option;
    }
}

TEST(OptionTable, EveryCommandHasItsOwnOptions) {
    for (const std::string& command : cudag::cli::table_commands())
        EXPECT_FALSE(cudag::cli::option_table(command).empty()) << command;
    EXPECT_EQ(find(cudag::cli::option_table("fci"), "--compat").meaning,
              "semantics: pcalg (default: pcalg's fci / rfci) or causal-learn (causal-learn 0.1.4.8's fci)");
    EXPECT_EQ(find(cudag::cli::option_table("simulate discrete"), "--states").type, "int");
    EXPECT_THROW(find(cudag::cli::option_table("simulate gaussian"), "--states"), std::runtime_error);
    EXPECT_EQ(find(cudag::cli::option_table("mcmc"), "--iterations").default_value, "10000");
}

TEST(OptionTable, UnknownCommandIsAnInputError) {
    try {
        cudag::cli::option_table("info2");
        FAIL() << "no error";
    } catch (const cudag::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no command 'info2' (available: pc, fci,"), std::string::npos) << e.what();
    }
}

}  // namespace
