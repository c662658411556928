// SPDX-License-Identifier: Apache-2.0
// Background knowledge (issue 23): forbidden and required edges and temporal tiers, read
// from `--forbid`, `--require` and `--tiers` files, shared by PC (skeleton and orientation)
// and order MCMC (parent-set constraints).
//
// Semantics (causal-learn's BackgroundKnowledge, pcalg's fixedGaps / fixedEdges):
//  - a forbidden direction a -> b: a is never a parent of b; a forbidden pair (both
//    directions forbidden, or `a -- b` / `a b` in the forbid file) is never adjacent;
//  - tiers: a direction from a later tier to an earlier one is forbidden (within a tier,
//    and for variables in no tier, nothing is);
//  - a required direction a -> b: the edge is present and points to b; a required pair
//    (`a -- b` / `a b` in the require file) is adjacent, in either direction.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/digest.hpp"

namespace cudag {

class Knowledge {
public:
    using Pair = std::pair<std::int32_t, std::int32_t>;

    Knowledge() = default;
    /// No knowledge over n variables.
    explicit Knowledge(std::int64_t n) : n_(n), tier_(static_cast<std::size_t>(n), -1) {}

    std::int64_t n() const { return n_; }
    /// Nothing forbidden, required or tiered.
    bool empty() const {
        return forbid_dir_.empty() && forbid_adj_.empty() && require_dir_.empty() && require_adj_.empty() &&
               !has_tiers_;
    }
    /// Any constraint on directions (a directed forbidden or required edge, or tiers):
    /// orientation has to consult the knowledge. Without one the knowledge only fixes
    /// adjacencies (pcalg's fixedGaps / fixedEdges).
    bool has_directions() const { return !forbid_dir_.empty() || !require_dir_.empty() || has_tiers_; }
    /// Any forbidden direction or pair (causal-learn: forbidden_rules_specs is not empty).
    bool has_forbidden() const { return !forbid_dir_.empty() || !forbid_adj_.empty(); }
    /// Any required direction (causal-learn: required_rules_specs is not empty).
    bool has_required_directions() const { return !require_dir_.empty(); }
    /// Any variable in a tier (causal-learn: tier_map is not empty).
    bool has_tiers() const { return has_tiers_; }

    // ---- building (indices 0 <= a, b < n, a != b) -----------------------------------
    void forbid_direction(std::int32_t a, std::int32_t b) { forbid_dir_.insert({a, b}); }
    void forbid_pair(std::int32_t a, std::int32_t b) { forbid_adj_.insert(ordered(a, b)); }
    void require_direction(std::int32_t a, std::int32_t b) { require_dir_.insert({a, b}); }
    void require_pair(std::int32_t a, std::int32_t b) { require_adj_.insert(ordered(a, b)); }
    /// Put v in tier t >= 0 (earlier tiers have smaller t).
    void set_tier(std::int32_t v, int t) {
        tier_[static_cast<std::size_t>(v)] = t;
        has_tiers_ = true;
    }

    // ---- queries -----------------------------------------------------------------------
    /// v's tier, -1 when it has none.
    int tier(std::int32_t v) const { return tier_.empty() ? -1 : tier_[static_cast<std::size_t>(v)]; }
    /// a -> b is forbidden: explicitly, as part of a forbidden pair, or by the tiers.
    bool forbidden(std::int32_t a, std::int32_t b) const;
    /// a -> b is required (explicitly; a required pair requires no direction).
    bool required(std::int32_t a, std::int32_t b) const { return require_dir_.count({a, b}) != 0; }
    /// a and b may not be adjacent: both directions are forbidden.
    bool adjacency_forbidden(std::int32_t a, std::int32_t b) const { return forbidden(a, b) && forbidden(b, a); }
    /// a and b must be adjacent: a required pair or a required direction either way.
    bool adjacency_required(std::int32_t a, std::int32_t b) const {
        return require_adj_.count(ordered(a, b)) != 0 || required(a, b) || required(b, a);
    }
    /// The pairs (i < j, sorted) that may not be adjacent.
    std::vector<Pair> forbidden_pairs() const;
    /// The pairs (i < j, sorted) that must be adjacent.
    std::vector<Pair> required_pairs() const;
    /// The explicitly required directions (a, b) = a -> b, sorted.
    const std::set<Pair>& required_directions() const { return require_dir_; }
    /// The required pairs given without a direction (i < j), sorted.
    const std::set<Pair>& undirected_required_pairs() const { return require_adj_; }

    /// Throws InputError (one line, naming the variables through `names` when given)
    /// when the knowledge contradicts itself: a pair both required and forbidden, a
    /// required direction that is forbidden (explicitly or by the tiers), both directions
    /// of a pair required, or required directions that form a cycle.
    void check(const std::vector<std::string>& names = {}) const;

    /// Adds everything that changes results to a digest (nothing when empty, so that a
    /// run without knowledge keeps its digest).
    void add_to(Digest& h) const;

    /// One line describing it ("none" when empty), for provenance.
    std::string summary() const;

private:
    static Pair ordered(std::int32_t a, std::int32_t b) { return a < b ? Pair{a, b} : Pair{b, a}; }

    std::int64_t n_ = 0;
    std::set<Pair> forbid_dir_;   ///< a -> b forbidden
    std::set<Pair> forbid_adj_;   ///< i < j never adjacent
    std::set<Pair> require_dir_;  ///< a -> b required
    std::set<Pair> require_adj_;  ///< i < j adjacent, either way
    std::vector<int> tier_;       ///< per variable, -1: none
    bool has_tiers_ = false;
};

/// The three knowledge files as the command line names them ("" for one not given).
struct KnowledgeFiles {
    std::string forbid;
    std::string require;
    std::string tiers;
    bool any() const { return !forbid.empty() || !require.empty() || !tiers.empty(); }
};

/// Read the knowledge files against the data's variable names (`names`, one per column).
///
/// Forbid and require files: one pair per line, `a -> b` (a direction), `a -- b` or
/// `a b` (a pair, either direction; separated by blanks or tabs). Tiers file: one tier
/// per line, earliest first, its variables separated by blanks or tabs. In every file a
/// `#` at the start of a line or after a blank starts a comment, and blank lines are
/// skipped. A variable is written as its name in the data header; a token that is no
/// name but a non-negative integer below the number of variables is a 0-based column
/// index (data without names). An unknown variable, a malformed line, a pair of one
/// variable, a variable in two tiers or contradictory knowledge is an InputError naming
/// the file and line (or the variables).
Knowledge read_knowledge(const KnowledgeFiles& files, const std::vector<std::string>& names);

/// One entry of knowledge given as a value (an in-process caller's forbid=/require=/tiers=
/// items): the tokens a line of the file would hold (`{a, "->", b}`, `{a, "--", b}`, `{a,
/// b}`; a tier's names), and where it came from for messages ("forbid= item 2"). Tokens are
/// not split at blanks, so a name may hold one.
struct KnowledgeLine {
    std::string where;
    std::vector<std::string> tokens;
};

/// Knowledge as values, beside or instead of the files.
struct KnowledgeValues {
    std::vector<KnowledgeLine> forbid, require, tiers;
    bool any() const { return !forbid.empty() || !require.empty() || !tiers.empty(); }
};

/// A line of a knowledge file as its tokens: split at blanks and tabs, a `#` at the start or
/// after a blank starting a comment.
std::vector<std::string> knowledge_tokens(const std::string& line);

/// read_knowledge of the files, then the values added to them, with the same rules and
/// messages (a value's messages name its `where`).
Knowledge read_knowledge(const KnowledgeFiles& files, const KnowledgeValues& values,
                         const std::vector<std::string>& names);

}  // namespace cudag
