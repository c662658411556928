// SPDX-License-Identifier: Apache-2.0
// Output files written under temporary names and moved into place together, and the
// checks every command runs on its file names before it starts work.
#pragma once

#include <string>
#include <vector>

namespace cudag::io {

/// Where writing `path` really lands: a symbolic link (or a chain of them) is followed to
/// its target, so that the link is kept and its target replaced. Throws InputError in one
/// line when the target exists and is not a regular file (a directory, FIFO, character or
/// block device or socket), or when the link chain does not end.
std::string output_target(const std::string& path);

/// Whether `a` and `b` name the same file: the same device and inode when both exist,
/// else the same canonical path (symbolic links followed as far as they exist).
bool same_file(const std::string& a, const std::string& b);

/// A file name a command was given, with the option that named it (for messages).
struct NamedPath {
    std::string option;  ///< e.g. "--data", "--out", "--format edges"
    std::string path;
};

/// Refuse, in one line, an output that is one of the inputs or two outputs that are the
/// same file (after following symbolic links). "-" (standard input/output) and empty
/// paths are skipped. Call before any work.
void check_distinct(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

/// Refuse, in one line, a file of `files` that exists when `overwrite` is false ("--out
/// 'd.csv' exists: add --overwrite to replace it"): for files a command creates (simulated
/// data, a written resample) that are often named like inputs kept elsewhere. "-" and empty
/// paths are skipped; a link that leads nowhere counts as existing.
void check_new_files(const std::vector<NamedPath>& files, bool overwrite);

/// Whether `formats` asks for a drawing (png or svg).
bool draws(const std::vector<std::string>& formats);

/// --force's one meaning: draw png/svg past 500 variables. Throws InputError when `force` is
/// given without a drawing in `formats`.
void check_force(bool force, const std::vector<std::string>& formats);

/// `message` with every temporary OutputSet::temp_for handed out in this process (even one
/// removed since) replaced by the output it stood for, so that an error such as a full
/// disk or a file-size limit names the file the user asked for ('r.h5'), not the
/// temporary ('.r.h5.tmp.PID'). main() passes every error line through it.
std::string with_final_names(std::string message);

/// A set of output files written under temporary names and moved into place together.
///
/// temp_for(final) hands out a temporary path beside the file `final` leads to (a link is
/// followed, see output_target): ".<name>.tmp.<pid>", so that the final rename stays on
/// one file system and is atomic. temp_for proves the directory writable by creating and
/// removing the temporary, removes stale temporaries of the same file left by processes
/// that no longer exist (a killed run), and registers the temporary with the interrupt
/// watcher (core/interrupt.hpp) so that SIGINT/SIGTERM remove it. commit() renames every
/// temporary onto its target. If the set is destroyed without a successful commit() (an
/// exception, a failed check), every temporary it handed out is removed, so a failed run
/// leaves neither partial files nor clobbered old results behind.
class OutputSet {
public:
    OutputSet() = default;
    OutputSet(const OutputSet&) = delete;
    OutputSet& operator=(const OutputSet&) = delete;
    /// Removes the temporaries that were not committed; never throws.
    ~OutputSet();

    /// Temporary path to write `final_path`'s contents to. Asking twice for the same
    /// final path returns the same temporary. Throws InputError when the directory does
    /// not exist or is not writable, or `final_path` is a directory, FIFO or device.
    std::string temp_for(const std::string& final_path);

    /// Forget `final_path`: remove its temporary (if written) and do not commit it.
    void discard(const std::string& final_path);

    /// Rename every temporary onto its final path, in the order they were handed out.
    /// Throws InputError naming the file when a temporary is missing or a rename fails;
    /// the files not yet renamed are then removed by the destructor.
    void commit();

    /// Final paths currently registered (as given), in the order they were handed out.
    std::vector<std::string> final_paths() const;

    /// Whether the last commit() succeeded (and nothing was added since).
    bool committed() const { return committed_; }

private:
    struct Entry {
        std::string final_path;  ///< as given (messages)
        std::string target;      ///< output_target(final_path): what the rename replaces
        std::string temp_path;
        bool done = false;  ///< already renamed into place
    };
    std::vector<Entry> entries_;
    bool committed_ = false;
};

}  // namespace cudag::io
