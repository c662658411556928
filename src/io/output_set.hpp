// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace cudag::io {

/// A set of output files written under temporary names and moved into place together.
///
/// temp_for(final) hands out a temporary path in the same directory as `final`
/// (".<name>.tmp.<pid>", so that the final rename stays on one file system and is
/// atomic); writers write there. commit() renames every temporary onto its final path.
/// If the set is destroyed without a successful commit() (an exception, a failed
/// check), every temporary it handed out is removed, so a failed run leaves neither
/// partial files nor clobbered old results behind.
class OutputSet {
public:
    OutputSet() = default;
    OutputSet(const OutputSet&) = delete;
    OutputSet& operator=(const OutputSet&) = delete;
    /// Removes the temporaries that were not committed; never throws.
    ~OutputSet();

    /// Temporary path to write `final_path`'s contents to. Asking twice for the same
    /// final path returns the same temporary. Throws InputError when the directory of
    /// `final_path` does not exist or `final_path` is a directory.
    std::string temp_for(const std::string& final_path);

    /// Forget `final_path`: remove its temporary (if written) and do not commit it.
    void discard(const std::string& final_path);

    /// Rename every temporary onto its final path, in the order they were handed out.
    /// Throws InputError naming the file when a temporary is missing or a rename fails;
    /// the files not yet renamed are then removed by the destructor.
    void commit();

    /// Final paths currently registered, in the order they were handed out.
    std::vector<std::string> final_paths() const;

    /// Whether the last commit() succeeded (and nothing was added since).
    bool committed() const { return committed_; }

private:
    struct Entry {
        std::string final_path;
        std::string temp_path;
        bool done = false;  ///< already renamed into place
    };
    std::vector<Entry> entries_;
    bool committed_ = false;
};

}  // namespace cudag::io
