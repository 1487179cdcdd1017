/// @file Defines Walk: one side of a plan (the sender's source, the receiver's destination) in storage order, piece by piece per peer coordinate — the packed order of the messages of plans built from layouts (runtime/pack.hpp's pack_message follows it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/dist/ldd.hpp>
#include <redist/index/run.hpp>

namespace redist {

/// One family of pieces of one dimension on the walking side, in its band: the pieces
/// [band.start + c·band.period + phase, + len) of local index for the cycles first <= c <
/// first + count.
struct WalkMember {
  index_t phase = 0;
  index_t len = 0;
  index_t first = 0;
  index_t count = 0;
  friend bool operator==(const WalkMember&, const WalkMember&) = default;
};

/// Members [first, first + size) of a dimension, sorted by phase, walked cycle by cycle: in cycle
/// c (c < cycles) every member whose cycles include c gives its piece, in member order, and that
/// is storage order (the builder makes sure). Bands follow each other.
struct WalkBand {
  index_t start = 0;
  index_t period = 0;
  index_t cycles = 0;
  std::size_t first = 0;
  std::size_t size = 0;
  friend bool operator==(const WalkBand&, const WalkBand&) = default;
};

/// One dimension of a walk: its element stride in the local storage, its place in the walk's
/// order of dimensions, and per peer coordinate that shares elements with this rank (the i-th of
/// them, in increasing order) its members banded (`bands[begin[i], begin[i + 1])` over `members`)
/// and their elements (`total[i]`).
struct WalkDim {
  std::size_t index = 0;
  index_t stride = 1;
  std::vector<WalkMember> members;
  std::vector<WalkBand> bands;
  std::vector<std::size_t> begin;
  std::vector<index_t> total;
  friend bool operator==(const WalkDim&, const WalkDim&) = default;
};

/// One rank's local array on one side of a plan (the sender's source, or the receiver's
/// destination) in storage order: the pieces of the innermost dimension nested in the outer
/// dimensions' elements, per peer coordinate.
///
/// It defines the packed order of every message of a plan built from layouts: a message holds
/// its elements in the order the *sender's* walk meets them, which is the sender's storage order
/// restricted to the pair — lexicographic in the global index, the source's innermost dimension
/// fastest (local indices grow with global ones in every dimension, which the builder checks).
/// The receiver's walk goes through its destination in the same order of dimensions (its own
/// storage order unless the pair is transposed or the storage orders differ), and so meets the
/// pair's elements in the same order. A message is packed along its own pieces, reading the
/// array forward, with one cursor (runtime::pack_message).
///
/// Dimensions holding one local element are left out unless no dimension is left.
/// `coords[i]` are message i's peer coordinates per walk dimension, as positions among the
/// dimension's peer coordinates (the plan's sends for a send walk, its recvs for a receive walk).
struct Walk {
  std::vector<WalkDim> dims;  ///< innermost first
  std::vector<std::vector<index_t>> coords;
  bool valid = false;  ///< false: messages are packed in the order of their runs
  explicit operator bool() const noexcept { return valid; }
  friend bool operator==(const Walk&, const Walk&) = default;
};

namespace detail {
/// One dimension handed to make_walk: the lists of families per peer coordinate that has any
/// (runs, whose src side is the walking side when `src_side`), the local extent and element
/// stride there.
struct WalkInput {
  const PeerRuns* families = nullptr;
  index_t extent = 0;
  index_t stride = 1;
};

/// A family of pieces before banding: pieces [start + m·stride, + len), m < count.
struct WalkFamily {
  index_t start = 0;
  index_t len = 0;
  index_t count = 0;
  index_t stride = 0;  ///< 0 when count == 1
};

/// Bands `fams` (disjoint families) into members and bands appended to the given vectors, in
/// storage order: in order of start, a family joins the open band when it has one piece or the
/// band's period (the first stride seen) and its pieces fall inside one cycle of the band's grid
/// (which starts at the first repeating family); where a ragged block shifts the pattern, the open
/// band ends at the last family after whose pieces all later ones start. Returns false when no
/// such banding exists.
inline bool try_band(std::vector<WalkFamily> fams, std::vector<WalkMember>& members, std::vector<WalkBand>& bands) {
  std::stable_sort(fams.begin(), fams.end(), [](const WalkFamily& a, const WalkFamily& b) { return a.start < b.start; });
  index_t end = 0;
  auto close = [&](std::size_t from, std::size_t to, index_t period) {
    if (from == to) return true;
    WalkBand b{fams[from].start, period, 0, members.size(), to - from};
    if (b.start < end) return false;  // after the previous band
    if (period > 0) {
      std::size_t r = from;
      while (fams[r].stride == 0) ++r;
      b.start = fams[r].start - period * ((fams[r].start - fams[from].start + period - 1) / period);
    }
    for (std::size_t i = from; i < to; ++i) {
      const WalkFamily& f = fams[i];
      WalkMember m{0, f.len, 0, f.count};
      const index_t rel = f.start - b.start;
      m.first = period == 0 ? 0 : rel / period;
      m.phase = rel - m.first * period;
      if (period > 0 && m.phase + m.len > period) return false;
      if (period == 0 && m.count != 1) return false;
      b.cycles = std::max(b.cycles, m.first + m.count);
      end = std::max(end, b.start + (m.first + m.count - 1) * period + m.phase + m.len);
      members.push_back(m);
    }
    std::stable_sort(members.begin() + static_cast<std::ptrdiff_t>(b.first), members.end(),
                     [](const WalkMember& x, const WalkMember& y) { return x.phase < y.phase; });
    if (period == 0)
      for (std::size_t j = b.first + 1; j < members.size(); ++j)
        if (members[j].phase < members[j - 1].phase + members[j - 1].len) return false;
    // Neighbours in every cycle are one piece (source blocks that go to the same destination
    // block): one longer copy instead of two.
    std::size_t out = b.first;
    for (std::size_t j = b.first; j < members.size(); ++j) {
      if (out > b.first) {
        WalkMember& prev = members[out - 1];
        const WalkMember& m = members[j];
        if (m.first == prev.first && m.count == prev.count && prev.phase + prev.len == m.phase) {
          prev.len += m.len;
          continue;
        }
      }
      members[out++] = members[j];
    }
    members.resize(out);
    b.size = out - b.first;
    bands.push_back(b);
    return true;
  };
  std::size_t open = 0;
  index_t period = 0, origin = 0;
  auto fits = [&](const WalkFamily& f) {
    const index_t phase = (((f.start - origin) % period) + period) % period;
    return phase + f.len <= period;
  };
  auto last_end = [&](std::size_t from, std::size_t to) {
    index_t e = 0;
    for (std::size_t j = from; j < to; ++j) e = std::max(e, fams[j].start + (fams[j].count - 1) * fams[j].stride + fams[j].len);
    return e;
  };
  for (std::size_t i = 0; i < fams.size(); ++i) {
    const WalkFamily& f = fams[i];
    bool joins = true;
    if (period == 0 && f.stride > 0) {
      period = f.stride;
      origin = f.start;
      for (std::size_t j = open; j < i && joins; ++j) joins = fits(fams[j]);
      if (!joins) period = 0;
    } else if (period > 0) {
      joins = (f.stride == 0 || f.stride == period) && fits(f);
    }
    if (joins) continue;
    std::size_t cut = i;
    while (cut > open && last_end(open, cut) > fams[cut].start) --cut;
    if (cut == open) return false;
    if (!close(open, cut, period)) return false;
    open = cut;
    period = 0;
    i = cut - 1;
  }
  return close(open, fams.size(), period);
}

/// Bands `fams` into storage order; where no banding exists (no built-in layout needs it), every
/// piece becomes a member of its own, in one band: always a walk, at the cost of its size.
inline void band(const std::vector<WalkFamily>& fams, std::vector<WalkMember>& members, std::vector<WalkBand>& bands) {
  const std::size_t m0 = members.size(), b0 = bands.size();
  if (try_band(fams, members, bands)) return;
  members.resize(m0);
  bands.resize(b0);
  std::vector<WalkFamily> pieces;
  for (const WalkFamily& f : fams)
    for (index_t j = 0; j < f.count; ++j) pieces.push_back(WalkFamily{f.start + j * f.stride, f.len, 1, 0});
  if (!try_band(pieces, members, bands)) report_error("redist: the pieces of a plan overlap: internal error");
}

/// The walk of one side of a plan: dims innermost first (the walking side's storage order, or
/// the sender's order of dimensions on the receiving side), `coords[i]` the peer positions per
/// walk dimension of the plan's message i (its sends or recvs).
inline Walk make_walk(std::span<const WalkInput> dims, std::vector<std::vector<index_t>> coords, bool src_side) {
  Walk w;
  w.coords = std::move(coords);
  const std::size_t N = dims.size();
  bool kept_any = false;
  for (std::size_t k = 0; k < N; ++k) kept_any = kept_any || dims[k].extent > 1;
  std::vector<WalkFamily> mine;
  for (std::size_t k = 0; k < N; ++k) {
    const WalkInput& in = dims[k];
    if (in.extent == 1 && (kept_any || k + 1 < N)) continue;  // one element: nothing to walk
    WalkDim dim;
    dim.index = k;
    dim.stride = in.stride;
    dim.begin.push_back(0);
    for (const std::vector<Run>& runs : in.families->runs) {
      mine.clear();
      index_t total = 0;
      for (const Run& r : runs) {
        mine.push_back(WalkFamily{src_side ? r.src : r.dst, r.len, r.count,
                                  r.count > 1 ? (src_side ? r.src_stride : r.dst_stride) : 0});
        total += r.size();
      }
      dim.total.push_back(total);
      band(mine, dim.members, dim.bands);
      dim.begin.push_back(dim.bands.size());
    }
    w.dims.push_back(std::move(dim));
  }
  w.valid = true;
  return w;
}

/// True when the LDDs store their elements as the distributions do (a block's elements adjacent,
/// blocks end to end: step 1, lblock b) and come in increasing global and local order: then
/// local indices grow with global ones and pieces are contiguous, which the walks' packed order
/// relies on.
template <LddRange R>
bool walkable(const R& ldds) {
  const Ldd* prev = nullptr;
  for (const Ldd& l : ldds) {
    if ((l.step != 1 && l.b > 1) || (l.lblock != l.b && l.n > 1)) return false;
    if (prev && (l.o < prev->end() || l.local < prev->local + prev->size())) return false;
    prev = &l;
  }
  return true;
}
}  // namespace detail

}  // namespace redist
