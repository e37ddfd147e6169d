//! Paper profiles on the clone machinery: `synth:profile=NAME[,scale=K][,seed=S][,iops=R]`
//! ([`crate::trace::profiles`] lists them). A profile is a clone of a real trace shipped in
//! `data/traces` (its *donor*, fitted once by `fcsim trace clone` into
//! `data/profiles/models/`, compiled in) reshaped to the counts a paper's table publishes.
//!
//! **What the table sets** (exact or held by feedback; `tests/test_profiles.py` checks each
//! within 2%):
//!
//! - *Requests*: the clone's length.
//! - *Unique pages*: the clone's working-set scale, K = pages / the donor's pages: the clone
//!   holds its first touches to the donor's growth × K ([`super`]), counted exactly, and never
//!   passes the table's count ([`super::Generator::with_pages`]).
//! - *Write share*: the donor's run-to-run transitions are reweighted (every transition into a
//!   write run × one factor f) so that the expected share of write requests, with each op's
//!   mean run length, is the table's; the generator then turns a run's op to the other while
//!   the writes so far are more than 0.2 points off ([`super::Generator::with_targets`]). Each
//!   op's first-touch growth is multiplied by its new share over its old (the two summed kept),
//!   so reads and writes each find new pages in proportion to their requests. A share of 0 or
//!   1 relabels the donor: every run, size and reuse class becomes the one op (the reuse
//!   distances of all four classes pooled), as the dynamic-allocation paper's write cache sees
//!   every request as a write.
//! - *Request size*: a mean size multiplies every size of the donor (run starts and the
//!   requests that follow on, reads and writes) by one factor c, rounded to whole 512 B sectors,
//!   c found by bisection so that the expected mean (each op's share × its run starts' and
//!   followers' means, weighted by its mean run length) is the table's (a size x·c between two
//!   sector counts becomes the lower or the upper in proportion, so the mean is exact at any c);
//!   reads stay larger than
//!   writes where the donor's are. The draws are then held to that mean by feedback
//!   ([`super::Generator::with_mean_size`]: the better of two draws while the mean so far is
//!   over 1% off). A table that gives no size but a page buffer (GASA) makes
//!   every request one aligned 4 KiB page.
//!
//! - *Locality p%/a%* (GASA Table II, per op): held by feedback on per-op hot sets
//!   ([`super::locality`], the same hot sets and goal on both models; `ablate=locality` turns
//!   it off; [`super::Generator::with_locality`]): a page joins the op's hot set on its first access
//!   by the op while the set is under p of the op's pages; reuses the donor's stack draws are
//!   moved to the nearest hot page (on the clone's stack) while the hot pages' share of the
//!   op's accesses is under its goal, and from a hot page to a uniformly drawn page of the
//!   op outside its hot set while over it; the goal is corrected so that the measured share of the op's top p pages is a.
//!   Chosen over a mixture of donors (no shipped trace has both OLTP writes and reuse within
//!   ~100 pages; the TPC-C sample has none) and over re-weighting the donor's distance bins
//!   (tried: no weighting of TPC-C's bins moves p below about 0.26). *Cost to fidelity*: the
//!   moved reuses keep their drawn depth only approximately (the nearest hot page within 16
//!   words of stack slots, else a uniformly drawn hot page; a move off the hot set keeps no
//!   depth), so the profile's LRU curve and
//!   its read-after-write classes drift from the donor's (`data/profiles/fidelity.md` gives
//!   both); the hot sets are the table's, not the donor's pages.
//!   *How close*: at scale 1 reads are within 0.5 points of the table's p; writes within 3
//!   (gasa-t1 0.280 against 0.31, gasa-t2 0.182 against 0.16: the op's cold pages still take
//!   the donor's reuse between moves, and a few of them outrank late hot pages).
//!
//! **What the donor gives**: the reuse (stack) distances per op pair, the run lengths (a
//! sequential run keeps its length in requests), the time shape of the working set's growth
//! and of the read/write mix (64 windows), and the arrivals' burstiness (the donor's cascade;
//! its time axis stretched so the mean rate is `iops`, 1000/s unless given, the rate the
//! calibrated profiles had, so an experiment's loads carry over).
//!
//! **On the renewal clone** (the default since issue 40, [`DEFAULT_RENEWAL`]; `model=stack` gives
//! the stack profile above; [`super::renewal`], [`Renewal::with_shape`]): a profile is a clone
//! of its donor, and the renewal clone is the one that keeps what separates policies
//! (`bench/RESULTS.md`, "Trace clones: policy ranking"). Its known misses against the stack
//! profile: gasa-t3's reads' locality 1.9 points off GASA's at scale 1 (the stack's 0.0; at scale
//! 0.05 0.1 off since model format 5, 1.9 before);
//! and the GASA profiles' LRU hits, all within 10% of
//! the working set where the donor has 43% of its hits beyond (below, *Pages alive at once*).
//! The donor's renewal counts are reshaped by these levers:
//!
//! - *Requests*: the clone's length (`length=N`), a single run (no further runs on new pages);
//!   the windows and quarters follow the requests out, of the table's count.
//! - *Unique pages*: K = pages / the donor's pages scales the gaps above [`super::UNSCALED`]
//!   ticks, as `scale=K` does on a clone. The new pages are paced by the requests out: the
//!   donor's shape of new pages (per window, reweighted as below) over the table's count, the
//!   per-tick budget × 2^(deficit / (0.25% of the pages + 4)) and never more than the shape
//!   wants by then (except when nothing is due at all). References per page, the table's
//!   requests × accesses per request / pages, are not the donor's (GASA asks ~22, the TPC-C
//!   sample has ~1): below the donor's, the classes of new pages are tilted (weight m_c^θ, m_c
//!   a class's mean references, θ by bisection); above, a page that would end goes on with a
//!   probability `more` (its gap drawn from its state's gaps), 1 - donor / wanted; both
//!   corrected by pilots (below), and `more` is raised to 0.9999 while the new pages are at
//!   or ahead of the shape. *Cost*: a page that goes on has no end of its own, so the pages'
//!   references become geometric past the donor's classes; the tilt changes the mix of
//!   popularity.
//! - *Pages alive at once* (issue 40, for a profile whose pages go on): how many pages are
//!   alive at once (given out and not yet ended) sets where LRU's hits land, and the table's
//!   counts do not pin it: pages are born at the shape's pace and end at (1 - `more`) a
//!   reference whatever their number, so it stays near where the start leaves it (on the
//!   GASA profiles a few dozen pages: every LRU hit within 1% of the working set, the same
//!   hit ratio at each of GASA's buffer sizes). So the profile holds a share λ of the new
//!   pages out alive: no page ends while fewer are alive, and a continued reference's gap is
//!   the pages alive × its drawn gap / the mean of the op's pooled gaps (the donor's spread
//!   of gaps, in units of the pages alive; at least the drawn gap, scaled), so that the pages
//!   alive come back about once in as many references as there are of them, whatever their
//!   number and the scale ([`Shape::alive`]). λ is found by pilots (the profile itself, whole
//!   up to 2 M requests, feedback and locality on; bisection on log2 λ from 2^-8 to 1, six
//!   rounds) so that the share of LRU's hits within 1% of the working set among those within
//!   50% (the first point of `data/profiles/fidelity.md`'s hit shape) is the donor's (TPC-C
//!   0.456, hm_0 0.450, from the donor models' page-level curves); a λ whose pilot misses the
//!   table's write share by over 0.5 points, its pages by over 0.5% or its locality p (GASA)
//!   by over 2.5 points on an op is refused (too many pages alive take the requests the new
//!   pages need; gasa-t3's cold read pages kept alive spread its reads: 0.294 at scale 1
//!   without the locality's check, 0.271 with it, table 0.28), and λ = 0 (neither rule) when
//!   a pilot at 0 has no more hits near than the donor (dynamic-homes, exchange, msnfs).
//!   *Measured* (`data/profiles/fidelity.md`, hit_shape_mae before → after): gasa-t1, t2, t3
//!   0.203 (FAIL: LRU's miss ratio the same at 1% and 50%, gasa-t1 0.046) → 0.183, 0.182,
//!   0.195 (gasa-t1 0.555 at 1%, 0.046 from 10%); lcr-web_0 0.050 → 0.008, ts_0 0.051 →
//!   0.006, proj_0 0.051 → 0.039, wdev_2 0.015 → 0.059, lcr-financial2 0.193 → 0.183,
//!   dynamic-financial1 0.155 → 0.064. The GASA profiles pass by 0.005-0.018: their hits
//!   between 10% and 50% of the working set stay under 4% of the hits (the donor's 43%; not
//!   analysed further: the table's locality puts 69-89% of each op's accesses on 11-31% of
//!   its pages, the donor's about a third on a third). Counts (`examples/profile_counts.rs`, scale 0.05): pages within
//!   0.1% but lcr-wdev_2 (4,988 of 5,000: 0.24% under); locality below.
//!   *Tried and not kept*: (1) the continued gaps × a stretch (up to 65,536, also spread
//!   log-uniformly) change nothing: the new pages are paced by requests and the clock skips
//!   ticks with nothing due, so a stretch of every continued gap is a change of time unit and
//!   the reuses' order stays. (2) λ alone, or (1 - `more`) × a factor, with the donor's gaps:
//!   the pages kept alive come back at the donor's pace and take the requests (lcr-wdev_2 at
//!   scale 1, every page kept: 71,700 of 100,000 pages), and the 1% point does not carry over
//!   between scales (lcr-ts_0 0.37 at 0.1, 0.73 at 0.5), the donor's unscaled gaps (64 ticks
//!   and under) being a fixed number of pages. (3) Pilots of the profile's first 10,000
//!   pages: on gasa-t3 at scale 1 the share they found cost 0.7 points of its writes and 5.7
//!   of its reads' locality p. *Cost*: finding λ generates the profile up to seven more
//!   times (gasa-t1 at scale 1, 1.35 M requests: about 5 s), once per profile, counts, seed
//!   and build: *Kept on disk* below.
//! - *Write share*: the odds of a write × f, in each window's new pages and in the op drawn
//!   with every gap (read-after-write structure kept in odds, not in level); a share of 0 or
//!   1 makes every op that one. f starts at the table's odds over the donor's (of page
//!   accesses) and is corrected by the pilots; then ops are turned (the next reference of a
//!   request's pages, and a new request's op) while the writes so far are more than 0.2
//!   points off.
//! - *Mean size*: each op's mean is its own target, so that reads stay larger than writes as in
//!   the donor: the table's mean b split as the donor's ratio ρ of its reads' mean to its
//!   writes' (exact bytes, its run starts and followers), writes b / (ρ (1 - w) + w) and reads
//!   ρ times that at the table's share of writes w (both b when every request is one op). Each
//!   op's new requests' bytes and reuse requests' pages × its factor c_op, in whole sectors /
//!   pages, the lower or upper in proportion; c_op starts at its target over the op's new
//!   requests' mean and is corrected by the pilots, and the write odds f with it by the change
//!   in the ops' pages per request (larger reads are fewer reads for the same page accesses).
//!   Then the better of two draws of an op's sizes while the mean over both ops is over 1% off
//!   the table's, else while the op's mean is over 1% off its own target (the table's mean
//!   first: one op that cannot reach its own is made up by the other); a request turned to the
//!   other op draws its size from that op's. GASA's page-sized tables make every request one
//!   page. Before each op had its own target (one c for both, the feedback on the mean over
//!   both), the ops' means drifted together: the read/write ratio at the fidelity report's
//!   scales was 1.09 (lcr-web_0), 1.13 (ts_0), 1.17 (proj_0) and 2.18 (wdev_2) against the
//!   donor's 1.652; now 1.638, 1.596, 1.511 and 1.563 (lcr-financial2 0.891 against its
//!   donor's 0.927).
//! - *Pilots*: 4 clones of min(requests, 40,000) at the same shape, feedback off, each
//!   correcting f by the odds missed, c by the mean missed, and the references per page by the
//!   ratio missed (damped, power 0.7).
//! - *Kept on disk*: the factors the pilots find (c, f, the tilt or `more`, the ticks per
//!   request, λ) depend on nothing but the profile, its counts (scale, `requests=`), its seed,
//!   whether its locality is held, and the code and donor models that find them. They are kept
//!   per process and in a small text file in the clone models' folder (`cache::dir`,
//!   `$FCSIM_MODEL_DIR`; empty: off), named by those and the revision (the digest of the
//!   core's source and the donor models: a new build finds them again, never a stale file),
//!   every float by its bits so that a profile read from it is the one found (same requests).
//!   A file that does not read back whole is found again and written over; a folder that
//!   cannot be written costs the pilots next time, never a failed run. Opening gasa-t1 at
//!   scale 1 in a new process (`examples/profile_counts.rs 1 gasa-t1`, which also opens it
//!   with `ablate=locality` and counts both): 17.7 s of CPU the first time, 4.4 s after.
//! - *Locality p%/a%* (GASA Table II, per op): the stack profile's hot sets and goal
//!   ([`super::locality`]) with the renewal clone's lever: which pages go on and with which op
//!   ([`Renewal::with_locality`]; `ablate=locality` turns it off), and each op's unique pages
//!   held to what its p/a can reach with its accesses (the *room*: U ≤ A (1 - a) / (1 - p),
//!   paced by the share of the table's pages out; a new request or a reference that would
//!   pass it is made with the other op). Without the lever the continued pages' references
//!   are geometric, which gives p of about a third whatever the table's (read / write p at
//!   scale 0.05: gasa-t1 0.33/0.35 against 0.13/0.31, gasa-t2 0.33/0.35 against 0.17/0.16,
//!   gasa-t3 0.31/0.34 against 0.28/0.11). With it (`examples/profile_counts.rs`, seed 42,
//!   the pages alive held, model format 5): at scale 0.05, 0.130/0.305, 0.170/0.162,
//!   0.281/0.111; at scale 1, 0.127/0.309, 0.164/0.159, 0.299/0.110 (format 4: 0.131/0.310,
//!   0.170/0.161, 0.299/0.111 and 0.132/0.310, 0.175/0.162, 0.271/0.110): within the
//!   stack's 2.5 points (Rust, scale 0.05) on every op. Before the pages alive were held (fcsim 525d03e2), at 0.05,
//!   0.130/0.274, 0.169/0.159, 0.280/0.111: gasa-t1's writes 3.6 off (the reads' hot pages
//!   drew writes and became the writes' most accessed pages; [`super::locality`]), which the
//!   pages kept alive, written across the trace, now share with the writes' own; gasa-t3's
//!   reads now 1.9 off at 0.05 (0.28 before: its cold read pages kept alive spread the
//!   reads; held by the pilots' check above); within the 4 points
//!   `tests/test_profiles.py` holds the profiles to at scale 1 on every op (before the room,
//!   gasa-t2's writes 0.203 against 0.16: the donor's split of new pages left writes 4.0
//!   accesses a page where 0.16/0.84 needs at least 5.25). *Cost*: the room moves new pages
//!   and references from one op to the other (the donor's read-after-write structure and
//!   split of new pages between the ops change where it binds: gasa-t2's writes).
//! - *Measured misses* (`fcsim trace info`, seed 42 unless said; before the pages alive were
//!   held but the pages at 0.05): requests exact; pages within 0.2% on every profile at scale
//!   0.05 but lcr-wdev_2 (0.24% under), and within 0.9% on the mean over seeds 1-5 at the
//!   Rust tests' 20,000 requests (lcr-proj_0; one seed's figure there is a draw: gasa-t1's
//!   seed 3 9.3% over, its seeds 1, 2, 4 and 5 within 1%); write share within 0.2 points but
//!   lcr-wdev_2 (0.9968 against 0.9989). Mean size: at the LCR experiment's scale 0.5 (the
//!   pages alive held), within 1% but lcr-wdev_2 (lcr-web_0 7,898 B against 7,823, lcr-ts_0
//!   4,794 against 4,751, lcr-proj_0 19,697 against 19,517, lcr-wdev_2 4,226 against 4,178:
//!   1.2% over, 2.8% before, lcr-financial2 2,453 against 2,478); before, over seeds 1-5
//!   from 1.0% under to 1.0% over and
//!   lcr-wdev_2 2.0-3.0% over; at 0.1 likewise (from 1.1% under to 1.1% over, lcr-wdev_2
//!   2.0-5.0% over); at 20,000 requests, over seeds 1-5, from 1.1% under to 0.9% over,
//!   lcr-wdev_2 2.2-6.3% over (its mean over both ops stays over the table's although the
//!   feedback draws the better of two sizes while it is over 1% off; not analysed further).
//!   *Before the fit counted each new page in its own window* ([`super::renewal`], fcsim
//!   e46753a8): the fit put a short trace's new pages in the windows of 1,024-tick chunks
//!   (the hm_0 excerpt's in windows 0, 26 and 53 of 64), so a profile's new pages came in
//!   bursts and its mean size fell where none was due (a reuse request is at most the pages
//!   due together): at 0.5 over seeds 1-5 from 3.8% under to 1.1% over, at 20,000 requests
//!   from 15.6% under (lcr-wdev_2 seed 4) to 1.2% over (lcr-ts_0 at 0.01: its first 289 new
//!   pages by request 2,000, none more until request 6,000). The levers tried then against
//!   that fall (issue 40, item 6: more pilot rounds, damped or not; a block issued whole
//!   while under; the last page kept alive; joining the next pages of a row) treated its
//!   symptom, none held every profile at every scale, and none was kept.
//! - *The GASA profiles' hit shape* failed from the refit above to the pages alive held
//!   (hit_shape_mae 0.203 on gasa-t1, t2 and t3 against the report's 0.2; fcsim 525d03e2):
//!   LRU's miss ratio the same at 1%, 10% and 50% of the working set (gasa-t1 0.046), every
//!   policy hitting alike (LRU 0.954 on gasa-t1 at each of GASA's four sizes), so that
//!   `fcsim reproduce gasa` found 14 of its 20 profile claims untestable. Before the refit
//!   the bursts of new pages interleaved many pages' references and spread the hits to 10%
//!   (hit_shape_mae 0.190-0.199, a pass by 0.001-0.010): neither was the donor's shape, and
//!   both came from how many pages happened to be alive at once (*Pages alive at once*).
//! - *What holding the pages alive changed* (`fcsim reproduce gasa`, `lcr`, `dynamic` rerun,
//!   3 seeds; each summary's "Verdicts that changed" gives the figures). GASA (fcsim
//!   e2bb8ce3, then 6c4738d1 with the pilots' locality check): the 14 profile claims found
//!   untestable before are scored, 9 agree and 5 disagree, then 7 and 7 (GASA's best cuts of
//!   LRU's flash writes and runtime about the paper's: agrees → disagrees on seed index 0,
//!   gasa-t3's reads' locality held; agrees on the two other seeds); and "CFLRU's and
//!   LRU-WSR's hit ratios are approximate to LRU's" agrees → disagrees (19 of 24 points;
//!   down to -7.8%): LRU's hit ratio on gasa-t1 at 1, 2, 4 and 8 MiB 0.200, 0.382, 0.668,
//!   0.867 (0.954 at each before), GASA's 0.242, 0.433, 0.707, 0.876. 34 of the 38
//!   verdicts the same on the 3 seeds. LCR (e2bb8ce3), 2 of 30: "proj_0, wdev_2: 95% or more of
//!   the evicted blocks are dirty" agrees → disagrees (lcr-proj_0 0.965 → 0.776), ts_0/web_0
//!   "LCR's mean response falls as the window grows" disagrees → agrees (-29.4% … -22.8%);
//!   the hit ratio's spread over the window is down to 7.9% (24.3%). Dynamic (e2bb8ce3), 1
//!   of 14: the live-training variant on dynamic-financial1 agrees → not scored (its
//!   controller decided once, under the 4 times a score needs).
//! - *What the switch changed* (issue 40; `fcsim reproduce gasa`, `lcr`, `dynamic` rerun on
//!   fcsim 9c834932, each summary's "Verdicts that changed" lists the claims with the figure
//!   each scored before and now; the shipped traces' verdicts unchanged). GASA: 9 of the 20
//!   profile verdicts (5 agree / 15 disagree → 11 / 9). To agree: the flash-write cut larger
//!   on read-dominant traces (GASA's best cut T1 -17.7% → -22.5%, T2 -31.7% → -7.7%, T3
//!   -45.4% → -5.0%), CCF-LRU and PT-LRU the fewest flash writes (9 → 12 of 12 points) and
//!   the lowest hit ratios (9 → 12 of 12), GASA's hit ratio between the two groups on T3 (1 →
//!   4 of 4), CCF-LRU's and PT-LRU's runtime longer than LRU's (5 → 10 of 12 each), T2/T3 at
//!   8 MB CCF-LRU and PT-LRU longer than the other four (2 → 4 of 4). To disagree: T2/T3 at 1
//!   MB CCF-LRU and PT-LRU shorter than CFLRU and LRU-WSR (4 → 2 of 4), and GASA the fewest
//!   flash writes but for CCF-LRU and PT-LRU (12 → 11 of 12). Why, in numbers: the renewal
//!   profiles' pages keep their popularity (a hot page is referenced again and again), so the
//!   buffer hits more (LRU at 1 MiB: T1 0.165 → 0.268, T2 0.207 → 0.687, T3 0.324 → 0.482)
//!   and the clean-first policies' early clean evictions throw more of it away (CCF-LRU at 1
//!   MiB: T1 0.198, T2 0.339, T3 0.361, below every other policy at every size; on T3 the
//!   stack profile had them above LRU, 0.404 against 0.324): evicting clean pages first, they
//!   keep the dirty ones (the fewest flash writes) at the cost of those hits (the lowest hit
//!   ratios, the longest runs).
//!   LCR: 1 of the 23 claims' profile verdicts, to agree: LCR's hit ratio not sensitive to
//!   its window (4 of 4 points within 5%, spread 0.1% … 2.8%; before 1 of 4, up to 102.5%).
//!   The renewal LCR profiles hit 0.92-0.96 under LCR at every window where the stack's hit
//!   0.18-0.32 and halved at a window of all the cache (lcr-web_0 0.319 → 0.158): the table's
//!   2,029,945 requests on fcsim's 100,000 pages are about 40 references a page, and the
//!   renewal profile keeps the donor's hit-curve shape (hm_0's reuse mostly within 1% of its
//!   working set; `data/profiles/fidelity.md`'s shape error 0.04-0.05 against the stack
//!   profiles' 0.12-0.18), so at the experiment's cache most references hit. Dynamic
//!   allocation: 2 of the 12 claims' profile verdicts, to agree, on dynamic-financial1 (the
//!   one profile whose reuse the claim can test): dynamic within 5% of the best static
//!   over-provisioning (33.4% off → 0%, it picks the best one), and so its live-training
//!   variant (before, not scored: "no decision (1 of 4)" on dynamic-financial1; now 7.9%
//!   better than the best static); not analysed further than these figures.
//! - *What the sequential shares changed* (the × 1024 of [`renewal_counts`]; `lcr` and
//!   `dynamic` rerun on fcsim b74e94ed, then all three with 3 seeds): LCR, 1 of 30 verdicts,
//!   to disagree: LCR's mean response falling as the window grows on ts_0 and web_0 (from
//!   1/64 to 1/2 -9.5% … -6.1% → -5.9% … -5.4%, with a step up of +1.2% and +2.9% from 1/4 to
//!   1/2 against the 1% allowed; so on each of the 3 seeds); dynamic, none of 14; GASA's
//!   page-sized profiles unchanged. Over 3 seeds, one profile verdict of the three papers' 82
//!   is the seed's: GASA the fewest flash writes but for CCF-LRU and PT-LRU (11, 12 and 11 of
//!   12 points).
//!
//! **Choices the sources leave open**: distances above 64 pages scale with K (so the LRU curve
//! against the working-set fraction is the donor's); a reshaped clone is not calibrated again
//! (the donor's calibration, at scale 1, is kept).

use super::renewal::{self, class_refs, Renewal, Shape, CLASSES};
use super::{Generator, Model, PAGE};
use crate::error::{compact, Error, Result};
use crate::request::MAX_REQUEST_BYTES;
use crate::trace::profiles::{self, Amount, Profile, Size};
use crate::trace::TraceReader;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// What a profile's table sets, resolved to counts at a scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Targets {
    pub requests: u64,
    pub pages: u64,
    pub write: f64,
    pub size: Size,
}

impl Targets {
    /// ConfigError when these counts cannot be one trace: fewer requests than can touch the
    /// profile's pages (a request of the table's mean size, or one page, touches at most its
    /// bytes in pages and one more). `requests=` far below the table's made such a profile
    /// silently: gasa-t1 with `requests=5000` is 5,000 new pages of 98.8% writes on the renewal
    /// clone (the table: 61,727 pages, 85% reads), 5,000 pages and no hit on the stack clone.
    /// A necessary condition only: above it a profile may still fall short of its pages
    /// (lcr-financial2, mean 2.42 KiB, at 65,000 requests: 73,121 of 100,000 on the renewal
    /// clone; its requests touch about 1.13 pages each, the bound 1.6) or, on the renewal
    /// clone, of its write share (the README).
    fn check(&self, spec: &str) -> Result<()> {
        let per = match self.size {
            Size::Page => 1.0,
            Size::Mean(b) => b / PAGE as f64 + 1.0,
        };
        let most = self.requests as f64 * per;
        if most < self.pages as f64 {
            return Err(Error::config(format!(
                "{spec}: {} requests cannot touch the profile's {} pages (a request of its size touches at most {} {}, \
                 {} in all); give more requests, or shrink every count together with scale=",
                self.requests,
                self.pages,
                compact(per),
                if per == 1.0 { "page" } else { "pages" },
                most as u64
            )));
        }
        Ok(())
    }
}

/// The donor models, parsed once per process.
fn donor(name: &'static str) -> Result<Arc<Model>> {
    type Models = std::sync::Mutex<Vec<(&'static str, Arc<Model>)>>;
    static MODELS: OnceLock<Models> = OnceLock::new();
    let cache = MODELS.get_or_init(Default::default);
    let mut c = cache.lock().map_err(|_| Error::config("profile models: a lock was poisoned"))?;
    if let Some((_, m)) = c.iter().find(|(n, _)| *n == name) {
        return Ok(m.clone());
    }
    let text = profiles::donor_text(name).ok_or_else(|| Error::config(format!("profile donor '{name}' is not compiled in")))?;
    let m = Arc::new(Model::parse(text, Path::new(&format!("data/profiles/models/{name}.model")))?);
    c.push((name, m.clone()));
    Ok(m)
}

/// Sums multisets of values.
fn merge(parts: &[&[(u64, u64)]]) -> Vec<(u64, u64)> {
    let mut m: BTreeMap<u64, u64> = BTreeMap::new();
    for p in parts {
        for &(v, c) in *p {
            *m.entry(v).or_default() += c;
        }
    }
    m.into_iter().filter(|p| p.1 > 0).collect()
}

fn add(a: &[u64], b: &[u64]) -> Vec<u64> {
    (0..a.len().max(b.len())).map(|i| a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0)).collect()
}

/// The donor with every request made op `x` (0 read, 1 write).
fn relabel(m: &Model, x: usize) -> Model {
    let mut r = m.clone();
    let y = 1 - x;
    for w in 0..r.windows[x].len() {
        for k in 0..2 {
            r.windows[x][w][k] += m.windows[y][w][k];
            r.windows[y][w][k] = 0;
        }
        r.growth[x][w] += m.growth[y][w];
        r.growth[y][w] = 0;
    }
    for t in &mut r.transitions {
        let all = t[0][0] + t[0][1] + t[1][0] + t[1][1];
        *t = [[0; 2]; 2];
        t[x][x] = all;
    }
    for v in [&mut r.runs, &mut r.sizes, &mut r.follow] {
        v[x] = merge(&[&v[0], &v[1]]);
        v[y].clear();
    }
    for h in [&mut r.distances, &mut r.heads, &mut r.tails] {
        let all = add(&add(&h[0][0], &h[0][1]), &add(&h[1][0], &h[1][1]));
        *h = Default::default();
        h[x][x] = all;
    }
    r
}

/// Mean of a multiset.
fn mean(v: &[(u64, u64)], f: impl Fn(u64) -> f64) -> Option<f64> {
    let n: u64 = v.iter().map(|p| p.1).sum();
    (n > 0).then(|| v.iter().map(|&(x, c)| f(x) * c as f64).sum::<f64>() / n as f64)
}

/// Per op: (share of requests that start a run, i.e. 1 / mean run length).
fn start_share(m: &Model, o: usize) -> f64 {
    mean(&m.runs[o], |x| x as f64).map_or(1.0, |l| 1.0 / l.max(1.0))
}

/// The expected share of write requests when write runs are a share `q` of runs.
fn write_share(m: &Model, q: f64) -> f64 {
    let len = |o: usize| 1.0 / start_share(m, o);
    q * len(1) / (q * len(1) + (1.0 - q) * len(0))
}

/// The donor with its transitions reweighted so that writes are a share `w` of requests, and
/// its growth split between the ops by their new shares.
fn reweight(m: &Model, w: f64) -> Model {
    let mut r = m.clone();
    let (t0, t1) = m.transitions.iter().fold((0u64, 0u64), |a, t| (a.0 + t[0][0] + t[1][0], a.1 + t[0][1] + t[1][1]));
    // The share of write runs q that gives w, by bisection on the expected request share.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let q = (lo + hi) / 2.0;
        if write_share(m, q) < w {
            lo = q;
        } else {
            hi = q;
        }
    }
    let q = (lo + hi) / 2.0;
    let f = if t1 > 0 && q < 1.0 { q / (1.0 - q) * t0.max(1) as f64 / t1 as f64 } else { 1.0 };
    // Counts × 1024 keep the factor's precision.
    for t in &mut r.transitions {
        for row in t.iter_mut() {
            row[0] *= 1024;
            row[1] = (row[1] as f64 * 1024.0 * f).round() as u64;
        }
    }
    let donor_w = {
        let reqs = |o: usize| m.windows[o].iter().map(|x| x[0]).sum::<u64>() as f64 / start_share(m, o);
        reqs(1) / (reqs(0) + reqs(1)).max(1.0)
    };
    let total: [f64; 2] = [0, 1].map(|o| m.growth[o].iter().sum::<u64>() as f64);
    let k = [(1.0 - w) / (1.0 - donor_w).max(1e-9), w / donor_w.max(1e-9)];
    let sum = total[0] + total[1];
    let moved = total[0] * k[0] + total[1] * k[1];
    if moved > 0.0 {
        for (growth, k) in r.growth.iter_mut().zip(k) {
            for g in growth.iter_mut() {
                *g = (*g as f64 * k * sum / moved).round() as u64;
            }
        }
    }
    r
}

/// The donor's request sizes made `size` for a model whose writes are a share `w`.
fn resize(m: &Model, size: Size, w: f64) -> Result<Model> {
    let mut r = m.clone();
    let set = |v: &[(u64, u64)], f: &dyn Fn(u64) -> u64| merge(&[&v.iter().map(|&(x, c)| (f(x), c)).collect::<Vec<_>>()]);
    match size {
        Size::Page => {
            for o in 0..2 {
                r.sizes[o] = set(&m.sizes[o], &|_| PAGE << 12);
                r.follow[o] = set(&m.follow[o], &|_| PAGE << 12);
            }
        }
        Size::Mean(target) => {
            // A size x becomes x·c in whole sectors: ⌊x·c / 512⌋ or one more, in proportion to
            // the fraction (counts × 1024), so the mean is continuous in c and exact.
            let split = |v: &[(u64, u64)], c: f64| {
                let mut out = Vec::with_capacity(2 * v.len());
                for &(x, n) in v {
                    let sectors = ((x >> 12) as f64 * c / 512.0).clamp(1.0, (MAX_REQUEST_BYTES / 512) as f64);
                    let (lo, frac) = (sectors.floor(), sectors.fract());
                    let up = (n as f64 * 1024.0 * frac).round() as u64;
                    let off = x & 0xfff;
                    out.push(((lo as u64 * 512) << 12 | off, n * 1024 - up));
                    out.push((((lo as u64 + 1).min(MAX_REQUEST_BYTES / 512) * 512) << 12 | off, up));
                }
                merge(&[&out])
            };
            let expected = |c: f64| {
                let op = |o: usize| {
                    let s = start_share(m, o);
                    let starts = mean(&split(&m.sizes[o], c), |x| (x >> 12) as f64).unwrap_or(0.0);
                    let follow = mean(&split(&m.follow[o], c), |x| (x >> 12) as f64).unwrap_or(starts);
                    s * starts + (1.0 - s) * follow
                };
                w * op(1) + (1.0 - w) * op(0)
            };
            let (mut lo, mut hi) = (1e-4f64, 1e4f64);
            for _ in 0..60 {
                let c = (lo * hi).sqrt();
                if expected(c) < target {
                    lo = c;
                } else {
                    hi = c;
                }
            }
            let c = (lo * hi).sqrt();
            if (expected(c) / target - 1.0).abs() > 0.01 {
                return Err(Error::config(format!(
                    "profile: no multiple of the donor's sizes has a mean of {} B (nearest {})",
                    compact(target),
                    compact(expected(c))
                )));
            }
            for o in 0..2 {
                r.sizes[o] = split(&m.sizes[o], c);
                r.follow[o] = split(&m.follow[o], c);
            }
        }
    }
    Ok(r)
}

/// The donor model reshaped to `t` (everything but the length and working-set scale, which
/// the generator takes).
pub fn reshape(m: &Model, t: &Targets) -> Result<Model> {
    let m = if t.write >= 1.0 {
        relabel(m, 1)
    } else if t.write <= 0.0 {
        relabel(m, 0)
    } else {
        reweight(m, t.write)
    };
    resize(&m, t.size, t.write)
}

/// A parsed `profile=NAME[,key=value...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileSpec {
    pub profile: &'static Profile,
    pub scale: f64,
    pub seed: u64,
    pub iops: f64,
    pub requests: Option<u64>,
    /// `model=renewal` (the renewal clone, [`super::renewal`]) or `model=stack`.
    pub renewal: bool,
    /// `ablate=locality`: the table's per-op locality not held ([`super::locality`]).
    pub ablate_locality: bool,
}

impl ProfileSpec {
    pub fn parse(spec: &str) -> Result<ProfileSpec> {
        let rest = spec.trim().strip_prefix("profile=").unwrap_or(spec);
        let mut parts = rest.split(',').map(str::trim);
        let name = parts.next().unwrap_or("");
        let profile = profiles::profile(name).ok_or_else(|| {
            let names: Vec<_> = profiles::PROFILES.iter().map(|p| p.name).collect();
            Error::config(format!("synth: unknown profile '{name}'; expected one of {}", names.join(", ")))
        })?;
        let mut s =
            ProfileSpec { profile, scale: 1.0, seed: 42, iops: 1000.0, requests: None, renewal: DEFAULT_RENEWAL, ablate_locality: false };
        let mut seen = Vec::new();
        for part in parts.filter(|p| !p.is_empty()) {
            let (k, v) =
                part.split_once('=').ok_or_else(|| Error::config(format!("synth:profile={name}: expected key=value, found '{part}'")))?;
            crate::trace::synth::once(&mut seen, &format!("synth:profile={name}"), k, v, &[&["requests", "n"]])?;
            let bad = |what: &str| Error::config(format!("synth:profile={name}: {k}={v}: expected {what}"));
            let clean = v.replace('_', "");
            match k {
                "scale" => {
                    s.scale = clean.parse::<f64>().ok().filter(|x| *x > 0.0 && *x <= 1e4).ok_or_else(|| bad("a positive number up to 1e4"))?
                }
                "seed" => s.seed = clean.parse().map_err(|_| bad("an unsigned integer"))?,
                "iops" => s.iops = clean.parse::<f64>().ok().filter(|x| *x > 0.0 && x.is_finite()).ok_or_else(|| bad("a positive rate (requests/s)"))?,
                "requests" | "n" => {
                    s.requests = Some(crate::trace::synth::count(v).ok_or_else(|| bad("a positive integer"))?);
                }
                "model" => {
                    s.renewal = match v {
                        "renewal" => true,
                        "stack" => false,
                        _ => return Err(bad("renewal or stack")),
                    }
                }
                "ablate" => {
                    s.ablate_locality = match v {
                        "locality" => true,
                        _ => return Err(bad("locality (the one part a profile can turn off)")),
                    }
                }
                _ => {
                    return Err(Error::config(format!(
                        "synth:profile={name}: unknown key '{k}'; a profile takes scale, seed, iops, requests, model or ablate (its other figures are its table's)"
                    )))
                }
            }
        }
        Ok(s)
    }

    /// The table's per-op locality p/a (read, then write) the profile holds: `None` when the
    /// table gives none or `ablate=locality`.
    pub fn locality(&self) -> Option<[(f64, f64); 2]> {
        self.profile.locality.filter(|_| !self.ablate_locality)
    }

    /// The table's counts at this scale.
    pub fn targets(&self) -> Targets {
        let p = self.profile;
        let mean_size = match p.size {
            Size::Page => PAGE as f64,
            Size::Mean(b) => b,
        };
        let count = |a: Amount, unit: f64| match a {
            Amount::Count(n) => n as f64,
            Amount::Bytes(b) => b / unit,
        };
        let requests = self.requests.unwrap_or(((count(p.requests, mean_size) * self.scale).round() as u64).max(1));
        let pages = ((count(p.pages, PAGE as f64) * self.scale).round() as u64).max(1);
        Targets { requests, pages, write: p.write, size: p.size }
    }
}

/// Whether a profile without `model=` is built on the renewal clone.
pub const DEFAULT_RENEWAL: bool = true;

/// Requests of a pilot that finds a renewal profile's factors.
const PILOT: u64 = 40_000;
/// Pilot rounds.
const ROUNDS: usize = 4;
/// Pilots of the pages alive: bisection on the share's log2 between -[`ALIVE_OCTAVES`] and 0
/// (to 1/8 of an octave), after one at 0 (none held).
const ALIVE_ROUNDS: usize = 6;
const ALIVE_OCTAVES: f64 = 8.0;
/// The most requests of a pilot of the pages alive (a larger profile's first, at its shape):
/// every profile of the papers' experiments is whole within it.
const ALIVE_PILOT: u64 = 2_000_000;
/// A pilot of the pages alive whose share of writes is further than this from the table's,
/// or whose pages are fewer than this share of its own, held too many pages alive. fcsim's
/// choice, set while looking at lcr-wdev_2 losing 0.66% of its pages at a share of 1/8: room
/// for a pilot's draw above what the generator holds without the lever (the write share
/// within 0.2 points, the pages within 0.2% at scale 0.05).
const COUNTS_WRITE: f64 = 0.005;
const COUNTS_PAGES: f64 = 0.995;
/// ... or whose locality p misses the table's by more than this on an op (the stack
/// profile's tolerance, `gasa_profiles_keep_the_tables_locality`).
const COUNTS_LOCALITY: f64 = 0.025;

/// The donor's renewal counts with its request sizes made `size` (each op's scaled by its `c`
/// for a mean), and with every request one op when the share of writes is 0 or 1. The reuse
/// requests' lengths are pooled over the bins of the request before ([`renewal::Counts::reuse`]):
/// resized, a length's bin is no longer the donor's, so a profile cuts its blocks by each op's
/// lengths alone, as a clone did before model format 6.
fn renewal_counts(m: &Model, size: Size, write: f64, c: [f64; 2]) -> Model {
    let mut r = m.clone();
    let Some(n) = r.renewal.as_mut() else { return r };
    let mut reuse = n.reuse.clone().map(|bins| merge(&bins.iter().map(Vec::as_slice).collect::<Vec<_>>()));
    if write <= 0.0 || write >= 1.0 {
        let x = usize::from(write >= 1.0);
        let (sizes, pooled) = (merge(&[&n.sizes[0], &n.sizes[1]]), merge(&[&reuse[0], &reuse[1]]));
        n.sizes = Default::default();
        reuse = Default::default();
        (n.sizes[x], reuse[x]) = (sizes, pooled);
        n.sequential[x] = n.sequential[0] + n.sequential[1];
        n.sequential[1 - x] = 0;
        n.reuse_sequential[x] = n.reuse_sequential[0] + n.reuse_sequential[1];
        n.reuse_sequential[1 - x] = 0;
        for k in &mut n.shared {
            (k[x], k[1 - x]) = (k[0] + k[1], 0);
        }
    }
    for o in 0..2 {
        let count = |v: &[(u64, u64)]| v.iter().map(|p| p.1).sum::<u64>();
        match size {
            Size::Page => {
                // Every request one aligned page: new requests and reuse requests alike.
                let (a, b) = (count(&n.sizes[o]), count(&reuse[o]));
                n.sizes[o] = if a > 0 { vec![(PAGE << 12, a)] } else { Vec::new() };
                reuse[o] = if b > 0 { vec![(1, b)] } else { Vec::new() };
            }
            Size::Mean(_) => {
                // Bytes × c in whole sectors, the lower or upper in proportion (counts × 1024);
                // a reuse request's pages × c likewise in whole pages, at least one.
                let c = c[o];
                let mut sizes = Vec::with_capacity(2 * n.sizes[o].len());
                for &(x, k) in &n.sizes[o] {
                    let sectors = ((x >> 12) as f64 * c / 512.0).clamp(1.0, (MAX_REQUEST_BYTES / 512) as f64);
                    let (lo, up) = (sectors.floor() as u64, (k as f64 * 1024.0 * sectors.fract()).round() as u64);
                    sizes.push(((lo * 512) << 12 | (x & 0xfff), k * 1024 - up));
                    sizes.push((((lo + 1).min(MAX_REQUEST_BYTES / 512) * 512) << 12 | (x & 0xfff), up));
                }
                n.sizes[o] = merge(&[&sizes]);
                let most = MAX_REQUEST_BYTES / PAGE;
                let mut scaled = Vec::with_capacity(2 * reuse[o].len());
                for &(x, k) in &reuse[o] {
                    let pages = (x as f64 * c).clamp(1.0, most as f64);
                    let (lo, up) = (pages.floor() as u64, (k as f64 * 1024.0 * pages.fract()).round() as u64);
                    scaled.push((lo, k * 1024 - up));
                    scaled.push(((lo + 1).min(most), up));
                }
                reuse[o] = merge(&[&scaled]);
                // The generator reads the sequential and shared counts as shares of these
                // requests, so they are × 1024 alike: unscaled, each share is 1/1024 of the
                // donor's, and a profile's runs of new requests (and of reuse requests) are one
                // request each (the module docs, *Mean size*).
                n.sequential[o] *= 1024;
                n.reuse_sequential[o] *= 1024;
                n.shared[0][o] *= 1024;
                n.shared[1][o] *= 1024;
            }
        }
    }
    n.reuse = reuse.map(|v| {
        let mut bins: [Vec<(u64, u64)>; renewal::SBINS] = Default::default();
        bins[0] = v;
        bins
    });
    r
}

/// The tilt whose classes give new pages `refs` references on average (bisection; the
/// donor's classes' mean references `m`, their new pages `n`), and that mean.
fn tilt_for(m: &[f64; CLASSES], n: &[f64; CLASSES], refs: f64) -> (f64, f64) {
    let mean = |t: f64| {
        let (a, b) =
            (0..CLASSES).filter(|&k| m[k] > 0.0).fold((0.0, 0.0), |s, k| (s.0 + n[k] * m[k].powf(t + 1.0), s.1 + n[k] * m[k].powf(t)));
        a / b.max(1e-300)
    };
    let (mut lo, mut hi) = (-8.0f64, 8.0f64);
    for _ in 0..60 {
        let t = (lo + hi) / 2.0;
        if mean(t) < refs {
            lo = t;
        } else {
            hi = t;
        }
    }
    let t = (lo + hi) / 2.0;
    (t, mean(t))
}

/// What a renewal clone of a shaped model gives: (share of writes, each op's mean size in
/// bytes (`None` without requests of the op), page accesses per request, page accesses per
/// unique page).
fn measure(g: &mut dyn TraceReader) -> Result<(f64, [Option<f64>; 2], f64, f64)> {
    let (mut n, mut w, mut bytes, mut ticks) = (0u64, 0u64, [0u64; 2], 0u64);
    let mut pages = rustc_hash::FxHashSet::default();
    while let Some(r) = g.next_request()? {
        let o = usize::from(r.op == crate::request::Op::Write);
        n += 1;
        w += o as u64;
        bytes[o] += u64::from(r.len);
        for p in r.offset / PAGE..=(r.offset + u64::from(r.len.max(1)) - 1) / PAGE {
            pages.insert(p);
            ticks += 1;
        }
    }
    let per = [n - w, w].map(|k| k as f64);
    let means = [0, 1].map(|o| (per[o] > 0.0).then(|| bytes[o] as f64 / per[o]));
    let n = n.max(1) as f64;
    Ok((w as f64 / n, means, ticks as f64 / n, ticks as f64 / pages.len().max(1) as f64))
}

/// The share of LRU's hits within 1% of the working set among those within 50% (the first
/// point of `data/profiles/fidelity.md`'s hit shape), from a curve's stack distances by bin
/// ([`super::model::page_bins`]: bin 0 the first accesses) over `pages` unique pages, a bin
/// taken in proportion where a size cuts it; `None` without a hit within 50%.
fn near_share(bins: &[u64], pages: u64) -> Option<f64> {
    let hits = |share: f64| {
        let size = ((pages as f64 * share).round() as u64).max(1);
        let mut h = 0.0;
        for (b, &c) in bins.iter().enumerate().skip(1) {
            let (first, n) = super::model::bin_range(b);
            if first > size {
                break;
            }
            h += c as f64 * ((size - first + 1) as f64 / n as f64).min(1.0);
        }
        h
    };
    let all = hits(0.5);
    (all > 0.0).then(|| hits(0.01) / all)
}

/// Each op's mean size (read, write) for a table's mean `b` at a share of writes `w`: the
/// donor's ratio of its reads' mean to its writes' (its run starts and followers, bytes)
/// kept, and the mean over both ops `b` (both `b` when every request is one op).
fn op_targets(m: &Model, b: f64, w: f64) -> [f64; 2] {
    let op = |o: usize| {
        let s = start_share(m, o);
        let starts = mean(&m.sizes[o], |x| (x >> 12) as f64)?;
        Some(s * starts + (1.0 - s) * mean(&m.follow[o], |x| (x >> 12) as f64).unwrap_or(starts))
    };
    match (op(0), op(1)) {
        (Some(r), Some(x)) if w > 0.0 && w < 1.0 && x > 0.0 => {
            let rho = r / x;
            let write = b / (rho * (1.0 - w) + w);
            [rho * write, write]
        }
        _ => [b; 2],
    }
}

/// A renewal profile's factors: each op's size factor c and the [`Shape`] at the table's counts `t`,
/// found by pilots (see the module docs), kept per process and on disk (*Kept on disk*).
fn renewal_shape(s: &ProfileSpec, t: &Targets, m: &Model) -> Result<([f64; 2], Shape)> {
    type Shapes = std::sync::Mutex<Vec<((&'static str, u64, u64, u64, bool), ([f64; 2], Shape))>>;
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    let key = (s.profile.name, t.requests, t.pages, s.seed, s.locality().is_some());
    let cache = SHAPES.get_or_init(Default::default);
    if let Some((_, v)) = cache.lock().map_err(|_| Error::config("profile shapes: a lock was poisoned"))?.iter().find(|e| e.0 == key) {
        return Ok(v.clone());
    }
    let v = stored_shape(super::cache::dir().as_deref(), s, t, m)?;
    cache.lock().map_err(|_| Error::config("profile shapes: a lock was poisoned"))?.push((key, v.clone()));
    Ok(v)
}

/// The file a renewal profile's factors are kept in on disk: what they are found from (the
/// profile, its counts, seed and whether its locality is held) and the code and donor models
/// that find them (the revision).
fn shape_file(s: &ProfileSpec, t: &Targets) -> String {
    let locality = u8::from(s.locality().is_some());
    format!("{}-r{}-p{}-s{}-l{locality}-{}.shape", s.profile.name, t.requests, t.pages, s.seed, super::cache::revision())
}

/// A renewal profile's factors from `dir` (the cache folder; `None`: off), else found by pilots
/// and stored there.
fn stored_shape(dir: Option<&Path>, s: &ProfileSpec, t: &Targets, m: &Model) -> Result<([f64; 2], Shape)> {
    let file = shape_file(s, t);
    // A file whose counts are not the name's (written by hand) is found again.
    let counts = |v: &([f64; 2], Shape)| (v.1.requests, v.1.pages) == (t.requests, t.pages);
    if let Some(v) = dir.and_then(|d| super::cache::read(d, &file)).and_then(|text| parse_shape(&text)).filter(counts) {
        return Ok(v);
    }
    let v = fit_shape(s, t, m)?;
    if let Some(d) = dir {
        super::cache::write(d, &file, &shape_text(&v));
    }
    Ok(v)
}

/// First line of a shape file.
const SHAPE_MAGIC: &str = "fcsim-profile-shape 1";

/// A shape file's fields, one a line after [`SHAPE_MAGIC`], in this order.
const SHAPE_FIELDS: [&str; 12] =
    ["c", "requests", "pages", "ticks_per_request", "write", "write_odds", "tilt", "more", "alive", "mean_size", "time_factor", "feedback"];

/// A profile's factors as text: every float by its bits, so that they read back exactly.
fn shape_text((c, sh): &([f64; 2], Shape)) -> String {
    let b = |x: f64| format!("{:016x}", x.to_bits());
    let values = [
        format!("{} {}", b(c[0]), b(c[1])),
        sh.requests.to_string(),
        sh.pages.to_string(),
        b(sh.ticks_per_request),
        b(sh.write),
        b(sh.write_odds),
        b(sh.tilt),
        b(sh.more),
        b(sh.alive),
        sh.mean_size.map_or("none".to_string(), |[r, w]| format!("{} {}", b(r), b(w))),
        b(sh.time_factor),
        u8::from(sh.feedback).to_string(),
    ];
    let mut text = format!("{SHAPE_MAGIC}\n");
    for (name, value) in SHAPE_FIELDS.iter().zip(values) {
        text += &format!("{name} {value}\n");
    }
    text
}

/// Reads [`shape_text`]'s text back; `None` for anything else (a file cut short, another
/// format, a float that is not finite): the factors are then found again.
fn parse_shape(text: &str) -> Option<([f64; 2], Shape)> {
    let mut lines = text.lines();
    (lines.next()? == SHAPE_MAGIC).then_some(())?;
    let lines: Vec<&str> = lines.collect();
    (lines.len() == SHAPE_FIELDS.len()).then_some(())?;
    let mut v = [""; SHAPE_FIELDS.len()];
    for ((x, line), name) in v.iter_mut().zip(lines).zip(SHAPE_FIELDS) {
        *x = line.strip_prefix(name)?.strip_prefix(' ')?;
    }
    let float = |x: &str| (x.len() == 16).then(|| u64::from_str_radix(x, 16).ok().map(f64::from_bits).filter(|f| f.is_finite()))?;
    let two = |x: &str| x.split_once(' ').and_then(|(a, b)| Some([float(a)?, float(b)?]));
    let shape = Shape {
        requests: v[1].parse().ok()?,
        pages: v[2].parse().ok()?,
        ticks_per_request: float(v[3])?,
        write: float(v[4])?,
        write_odds: float(v[5])?,
        tilt: float(v[6])?,
        more: float(v[7])?,
        alive: float(v[8])?,
        mean_size: if v[9] == "none" { None } else { Some(two(v[9])?) },
        time_factor: float(v[10])?,
        feedback: match v[11] {
            "0" => false,
            "1" => true,
            _ => return None,
        },
    };
    Some((two(v[0])?, shape))
}

/// A renewal profile's factors, found by pilots (the module docs).
fn fit_shape(s: &ProfileSpec, t: &Targets, m: &Model) -> Result<([f64; 2], Shape)> {
    let c0 = m.renewal.as_ref().ok_or_else(|| {
        Error::config(format!(
            "synth:profile={}: the donor model '{}' has no renewal counts; refit it with 'make profile-models'",
            s.profile.name, s.profile.donor
        ))
    })?;
    let refs = class_refs(c0);
    let new: [f64; CLASSES] = std::array::from_fn(|k| c0.new_pages.iter().map(|x| (x[0][k] + x[1][k]) as f64).sum());
    let odds = |p: f64| p.clamp(1e-6, 1.0 - 1e-6) / (1.0 - p.clamp(1e-6, 1.0 - 1e-6));
    // First guesses: sizes scaled by the table's mean over the new requests' mean, the write
    // odds by the table's over the donor's (of page accesses), a request's page accesses the
    // donor's × c.
    let target = match t.size {
        Size::Mean(b) => Some(op_targets(m, b, t.write)),
        Size::Page => None,
    };
    let donor_mean = mean(&merge(&[&c0.sizes[0], &c0.sizes[1]]), |x| (x >> 12) as f64).unwrap_or(PAGE as f64);
    let mut c = match target {
        Some(b) => [0, 1].map(|o| b[o] / mean(&c0.sizes[o], |x| (x >> 12) as f64).unwrap_or(donor_mean).max(1.0)),
        None => [1.0; 2],
    };
    let donor_writes = c0.events[1].iter().flatten().sum::<u64>() + c0.new_pages.iter().map(|x| x[1].iter().sum::<u64>()).sum::<u64>();
    let mut f = odds(t.write) / odds(donor_writes as f64 / c0.ticks.max(1) as f64);
    let mut tpr = match t.size {
        Size::Page => 1.0,
        Size::Mean(_) => (m.accesses as f64 / m.requests.max(1) as f64 * (c[0] * (1.0 - t.write) + c[1] * t.write)).max(1.0),
    };
    let mut bias = 1.0;
    // The donor's references per page.
    let natural = {
        let (a, b) = (0..CLASSES).fold((0.0, 0.0), |s, k| (s.0 + new[k] * refs[k], s.1 + new[k]));
        a / b.max(1.0)
    };
    let n = t.requests.min(PILOT);
    let pages = ((t.pages as f64 * n as f64 / t.requests as f64).round() as u64).max(1);
    let mut shape = Shape {
        requests: t.requests,
        pages: t.pages,
        ticks_per_request: tpr,
        write: t.write,
        write_odds: f,
        tilt: 0.0,
        more: 0.0,
        alive: 0.0,
        mean_size: target,
        time_factor: 1.0,
        feedback: true,
    };
    for round in 0..=ROUNDS {
        // Fewer references per page than the donor's: classes tilted; more: pages go on.
        let want = t.requests as f64 * tpr / t.pages as f64 / bias;
        let (tilt, more) =
            if want < natural { (tilt_for(&refs, &new, want).0, 0.0) } else { (0.0, (1.0 - natural / want).clamp(0.0, 0.999)) };
        shape = Shape { ticks_per_request: tpr, write_odds: f, tilt, more, ..shape };
        if round == ROUNDS {
            break;
        }
        let shaped = renewal_counts(m, t.size, t.write, c);
        let k = pages as f64 / m.pages as f64;
        let pilot = Shape { requests: n, pages, feedback: false, ..shape.clone() };
        let mut g = Renewal::new(&shaped, k, Some(n), s.seed, Default::default(), "pilot".into())?.with_shape(&shaped, pilot);
        let (w, size, ticks, per_page) = measure(&mut g)?;
        // Damped: a pilot's pages per page move with the levers less than in proportion.
        bias *= (per_page / (want * bias).max(1e-9)).powf(0.7);
        // Each op's sizes by the mean missed; then the odds of a write (of page accesses) by the
        // share of write requests missed, and by the change in the ops' pages per request the
        // new sizes bring (in proportion to their factors): larger reads are fewer reads for the
        // same page accesses.
        let before = c;
        if let Some(b) = target {
            for o in 0..2 {
                if let Some(x) = size[o] {
                    c[o] *= b[o] / x.max(1.0);
                }
            }
        }
        if t.write > 0.0 && t.write < 1.0 {
            f *= odds(t.write) / odds(w) * (c[1] / before[1]) / (c[0] / before[0]);
        }
        tpr = ticks;
    }
    if shape.more > 0.0 {
        shape.alive = alive_for(s, t, m, c, &shape)?;
    }
    Ok((c, shape))
}

/// The share of the new pages out that a profile whose pages go on keeps alive at once (the
/// module docs, *Pages alive at once*): 0 (none held) when a pilot at 0 has no more of its
/// hits within 1% of the working set than the donor; else the share, by bisection on its
/// log2, whose pilot comes closest to the donor's and keeps the table's counts. A pilot is
/// the profile itself (feedback and locality as they will run), whole up to [`ALIVE_PILOT`]
/// requests: pilots of its first 10,000 pages found shares that, on gasa-t3 at scale 1, cost
/// 0.7 points of its writes and 5.7 of its reads' locality p.
fn alive_for(s: &ProfileSpec, t: &Targets, m: &Model, c: [f64; 2], shape: &Shape) -> Result<f64> {
    let Some(goal) = near_share(&m.target, m.pages) else { return Ok(0.0) };
    let n = t.requests.min(ALIVE_PILOT);
    let pages = ((t.pages as f64 * n as f64 / t.requests as f64).round() as u64).max(1);
    let shaped = renewal_counts(m, t.size, t.write, c);
    let k = pages as f64 / m.pages as f64;
    let near = |alive: f64| -> Result<(Option<f64>, bool)> {
        let pilot = Shape { requests: n, pages, alive, ..shape.clone() };
        let g = Renewal::new(&shaped, k, Some(n), s.seed, Default::default(), "pilot".into())?.with_shape(&shaped, pilot);
        let mut g: Box<dyn TraceReader> = match s.locality() {
            Some(l) => Box::new(g.with_locality(l)),
            None => Box::new(g),
        };
        let mut sd = crate::mrc::StackDistances::new();
        let (mut requests, mut writes) = (0u64, 0u64);
        // Per page, its accesses by op (for the table's locality, when it has one).
        let mut by_op: rustc_hash::FxHashMap<u64, [u32; 2]> = Default::default();
        while let Some(r) = g.next_request()? {
            requests += 1;
            let o = usize::from(r.op == crate::request::Op::Write);
            writes += o as u64;
            for p in r.offset / PAGE..=(r.offset + u64::from(r.len.max(1)) - 1) / PAGE {
                sd.access(p)?;
                if s.locality().is_some() {
                    by_op.entry(p).or_default()[o] += 1;
                }
            }
        }
        let got = sd.pages() as u64;
        // A share that costs the table's counts or locality is too many pages alive, whatever
        // the hits (the bisection's; a pilot at 0 is the profile as it was).
        let local = s.locality().map_or(true, |l| {
            (0..2).all(|o| {
                crate::trace::info::Locality::of(by_op.values().map(|c| c[o])).map_or(true, |x| (x.pages - l[o].0).abs() <= COUNTS_LOCALITY)
            })
        });
        let held =
            (writes as f64 / requests.max(1) as f64 - t.write).abs() <= COUNTS_WRITE && got as f64 >= pages as f64 * COUNTS_PAGES && local;
        Ok((near_share(&super::model::page_bins(&sd.finish()), got), held))
    };
    if !near(0.0)?.0.is_some_and(|x| x > goal) {
        return Ok(0.0);
    }
    // log2 of the share: `lo` leaves too many hits near, `hi` not.
    let (mut lo, mut hi) = (-ALIVE_OCTAVES, 0.0f64);
    let mut best = (f64::INFINITY, 0.0);
    for _ in 0..ALIVE_ROUNDS {
        let x = (lo + hi) / 2.0;
        let (y, held) = near(x.exp2())?;
        let y = y.filter(|_| held);
        if let Some(y) = y.filter(|y| (y - goal).abs() < best.0) {
            best = ((y - goal).abs(), x.exp2());
        }
        if y.is_some_and(|y| y > goal) {
            lo = x;
        } else {
            hi = x;
        }
    }
    Ok(best.1)
}

/// Opens a profile on the renewal clone.
pub fn open_renewal(spec: &str, s: &ProfileSpec) -> Result<Renewal> {
    let t = s.targets();
    t.check(&format!("synth:{}", spec.trim()))?;
    let m = donor(s.profile.donor)?;
    let (c, mut shape) = renewal_shape(s, &t, &m)?;
    shape.time_factor = Generator::rate(&m).map_or(1.0, |r| r / s.iops);
    let shaped = renewal_counts(&m, t.size, t.write, c);
    let k = t.pages as f64 / m.pages as f64;
    let g = Renewal::new(&shaped, k, Some(t.requests), s.seed, Default::default(), format!("synth:{}", spec.trim()))?
        .with_shape(&shaped, shape);
    Ok(match s.locality() {
        Some(l) => g.with_locality(l),
        None => g,
    })
}

/// Opens a profile (the text after `synth:`) on the model its spec names.
pub fn open(spec: &str) -> Result<Box<dyn TraceReader>> {
    let s = ProfileSpec::parse(spec)?;
    Ok(if s.renewal { Box::new(open_renewal(spec, &s)?) } else { Box::new(open_stack(spec, &s)?) })
}

/// Opens a profile on the stack clone.
pub fn open_stack(spec: &str, s: &ProfileSpec) -> Result<Generator> {
    let t = s.targets();
    t.check(&format!("synth:{}", spec.trim()))?;
    let m = donor(s.profile.donor)?;
    let shaped = reshape(&m, &t)?;
    let k = t.pages as f64 / m.pages as f64;
    let factor = Generator::rate(&m).map_or(1.0, |r| r / s.iops);
    let all = merge(&[&shaped.sizes[0], &shaped.sizes[1]]);
    let start_pages = mean(&all, |x| ((x & 0xfff) + (x >> 12).max(1)).div_ceil(PAGE) as f64).unwrap_or(1.0);
    let g = Generator::new(&shaped, k, Some(t.requests), s.seed, format!("synth:{}", spec.trim()))?
        .with_targets(Some(t.write), factor)
        .with_pages(t.pages, start_pages)?;
    let g = match t.size {
        Size::Mean(b) => g.with_mean_size(b),
        Size::Page => g,
    };
    Ok(match s.locality() {
        Some(l) => g.with_locality(l),
        None => g,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceReader;
    use rustc_hash::FxHashSet;

    /// (requests, unique pages, write share, mean size in bytes) of a profile spec.
    fn counts(spec: &str) -> (u64, u64, f64, f64) {
        let mut g = open(spec).unwrap();
        let (mut n, mut w, mut bytes) = (0u64, 0u64, 0u64);
        let mut pages = FxHashSet::default();
        while let Some(r) = g.next_request().unwrap() {
            n += 1;
            w += u64::from(r.op == crate::request::Op::Write);
            bytes += u64::from(r.len);
            for p in r.offset / PAGE..=(r.offset + u64::from(r.len.max(1)) - 1) / PAGE {
                pages.insert(p);
            }
        }
        (n, pages.len() as u64, w as f64 / n as f64, bytes as f64 / n as f64)
    }

    /// Checks one model's counts on every profile at about 20,000 requests or more (the dynamic
    /// profiles' 4-11 M at 1%): requests exact, write share within 0.01, pages and mean size
    /// within `room` of the table's when given.
    fn check_counts(model: &str, room: Option<f64>) {
        for p in profiles::PROFILES {
            let full = ProfileSpec::parse(&format!("profile={}", p.name)).unwrap().targets().requests;
            let scale = (20_000.0 / full as f64).clamp(0.01, 1.0);
            let spec = format!("profile={},scale={scale},model={model}", p.name);
            let t = ProfileSpec::parse(&spec).unwrap().targets();
            let (n, pages, w, size) = counts(&spec);
            let want = match p.size {
                Size::Page => PAGE as f64,
                Size::Mean(b) => b,
            };
            eprintln!(
                "{} {model}: requests {n}/{}, pages {pages}/{}, writes {w:.4}/{}, size {size:.0}/{want:.0}",
                p.name, t.requests, t.pages, t.write
            );
            assert_eq!(n, t.requests, "{}", p.name);
            assert!((w - t.write).abs() <= 0.01, "{} {model}: write share {w}", p.name);
            if let Some(room) = room {
                assert!((pages as f64 / t.pages as f64 - 1.0).abs() <= room, "{} {model}: {pages} pages, table {}", p.name, t.pages);
                assert!((size / want - 1.0).abs() <= room, "{} {model}: mean size {size}", p.name);
            }
        }
    }

    #[test]
    fn a_profile_with_fewer_requests_than_can_touch_its_pages_is_refused() {
        // gasa-t1's pages are one a request: 5,000 requests reach 5,000 of its 61,727 pages.
        for model in ["renewal", "stack"] {
            let e = open(&format!("profile=gasa-t1,requests=5000,model={model}")).err().expect("refused").to_string();
            assert!(e.starts_with("synth:profile=gasa-t1,requests=5000,model="), "{e}");
            assert!(
                e.contains(
                    ": 5000 requests cannot touch the profile's 61727 pages (a request of its size touches at most 1 page, 5000 in all)"
                ),
                "{e}"
            );
        }
        // A mean size reaches its bytes in pages and one more a request.
        let e = open("profile=lcr-web_0,requests=100,model=stack").err().expect("refused").to_string();
        assert!(e.contains("(a request of its size touches at most 2.91 pages, 291 in all)"), "{e}");
        assert!(open("profile=gasa-t1,requests=61727,model=stack").is_ok());
    }

    /// The stack profiles' counts within 2% of the table's (`tests/test_profiles.py` holds the
    /// default profiles to 2% at their larger scales).
    #[test]
    fn every_profile_keeps_its_tables_counts_at_a_small_scale() {
        check_counts("stack", Some(0.02));
    }

    /// The renewal profiles' requests and write share, as the stack's.
    #[test]
    fn every_renewal_profile_keeps_its_requests_and_write_share() {
        check_counts("renewal", None);
    }

    /// The renewal profiles' pages and mean size within 3% of the table's on the mean over seeds
    /// 1-5, at this test's 20,000 requests or more (one seed's figure at so short a run is a
    /// draw: gasa-t1's pages at seed 3 9.3% over, at seeds 1, 2, 4 and 5 within 1%). Measured
    /// on this revision, over seeds 1-5: lcr-proj_0's pages 0.9% over, the mean sizes from 1.1%
    /// under to 0.9% over. One known miss: lcr-wdev_2's mean size, 3.5% over (seed 2 6.3% over;
    /// the module docs, *Measured misses*), held to 5%. The bounds were set after measuring: a
    /// guard against growth, not a target.
    #[test]
    fn every_renewal_profile_keeps_its_tables_pages_and_size_over_five_seeds() {
        for p in profiles::PROFILES {
            let full = ProfileSpec::parse(&format!("profile={}", p.name)).unwrap().targets().requests;
            let scale = (20_000.0 / full as f64).clamp(0.01, 1.0);
            let want = match p.size {
                Size::Page => PAGE as f64,
                Size::Mean(b) => b,
            };
            let (mut off, mut pages_off) = (0.0, 0.0);
            for seed in 1..=5 {
                let spec = format!("profile={},scale={scale},seed={seed}", p.name);
                let t = ProfileSpec::parse(&spec).unwrap().targets();
                let (_, pages, _, size) = counts(&spec);
                eprintln!("{} seed {seed}: pages {pages}/{}, size {size:.0}/{want:.0}", p.name, t.pages);
                pages_off += (pages as f64 / t.pages as f64 - 1.0) / 5.0;
                off += (size / want - 1.0) / 5.0;
            }
            let room = if p.name == "lcr-wdev_2" { 0.05 } else { 0.03 };
            assert!(pages_off.abs() <= 0.03, "{}: pages {:+.1}% off over seeds 1-5", p.name, 100.0 * pages_off);
            assert!(off.abs() <= room, "{}: mean size {:+.1}% off over seeds 1-5", p.name, 100.0 * off);
        }
    }

    /// A profile of a mean size keeps its donor's shares of sequential and shared requests
    /// (the generator reads the counts over its size counts, which are × 1024).
    #[test]
    fn a_sized_profile_keeps_the_donors_sequential_shares() {
        let m = donor("hm_0").unwrap();
        let n = m.renewal.as_ref().unwrap();
        let count = |v: &[(u64, u64)]| v.iter().map(|p| p.1).sum::<u64>() as f64;
        for write in [0.5, 1.0] {
            let r = renewal_counts(&m, Size::Mean(8192.0), write, [1.3, 0.7]);
            let g = r.renewal.as_ref().unwrap();
            // Both ops' counts summed where every request is one op (a share of writes of 1).
            let both = |x: [f64; 2], o: usize| {
                if write < 1.0 {
                    x[o]
                } else if o == 1 {
                    x[0] + x[1]
                } else {
                    0.0
                }
            };
            let f = |x: [u64; 2]| x.map(|v| v as f64);
            let sizes = |v: &[Vec<(u64, u64)>; 2], o: usize| both([count(&v[0]), count(&v[1])], o);
            for o in 0..2 {
                let share = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
                let was = share(both(f(n.sequential), o), sizes(&n.sizes, o));
                let now = share(g.sequential[o] as f64, count(&g.sizes[o]));
                assert!((now - was).abs() < 1e-9, "write {write} op {o}: sequential share {now} against the donor's {was}");
                let pooled = |v: &[Vec<(u64, u64)>; renewal::SBINS]| v.iter().map(|x| count(x)).sum::<f64>();
                let was = share(both(f(n.reuse_sequential), o), both([pooled(&n.reuse[0]), pooled(&n.reuse[1])], o));
                let now = share(g.reuse_sequential[o] as f64, pooled(&g.reuse[o]));
                assert!((now - was).abs() < 1e-9, "write {write} op {o}: reuse-sequential share {now} against {was}");
                for k in 0..2 {
                    let was = share(both(f(n.shared[k]), o), both(f([n.sequential, n.reuse_sequential][k]), o));
                    let now = share(g.shared[k][o] as f64, [g.sequential, g.reuse_sequential][k][o] as f64);
                    assert!((now - was).abs() < 1e-9, "write {write} op {o} kind {k}: shared share {now} against {was}");
                }
            }
            assert!(g.sequential.iter().sum::<u64>() > 0, "the donor's sequential requests kept");
        }
    }

    /// GASA Table II's read and write locality, measured as `fcsim trace info` does
    /// ([`crate::trace::info::Locality`]), per op.
    fn locality(spec: &str) -> [f64; 2] {
        use crate::trace::info::Locality;
        let mut g = open(spec).unwrap();
        let mut counts: rustc_hash::FxHashMap<u64, [u32; 2]> = Default::default();
        while let Some(r) = g.next_request().unwrap() {
            let o = usize::from(r.op == crate::request::Op::Write);
            for p in r.offset / PAGE..=(r.offset + u64::from(r.len.max(1)) - 1) / PAGE {
                counts.entry(p).or_default()[o] += 1;
            }
        }
        [0, 1].map(|o| Locality::of(counts.values().map(|c| c[o])).unwrap().pages)
    }

    /// GASA Table II's locality p within 2.5 points of the table's on each op at scale 0.05
    /// (measured: t1 read 0.130, write 0.304; t2 0.170, 0.174; t3 0.276, 0.110).
    #[test]
    fn gasa_profiles_keep_the_tables_locality() {
        for name in ["gasa-t1", "gasa-t2", "gasa-t3"] {
            let spec = format!("profile={name},scale=0.05,model=stack");
            let want = ProfileSpec::parse(&spec).unwrap().profile.locality.unwrap();
            let got = locality(&spec);
            for (o, (p, a)) in want.iter().enumerate() {
                eprintln!("{name} op {o}: {:.3}, table {p}/{a}", got[o]);
                assert!((got[o] - p).abs() <= 0.025, "{name} op {o}: p {:.3}, table {p}", got[o]);
            }
        }
    }

    #[test]
    fn near_share_is_the_hits_within_one_percent_among_those_within_half() {
        use super::super::model::bin;
        // 200 pages: 1% is 2 pages, 50% is 100.
        let mut bins = vec![0u64; bin(150) + 1];
        bins[0] = 200; // first accesses, never hits
        bins[bin(1)] += 3;
        bins[bin(50)] += 1;
        bins[bin(150)] += 5; // beyond half: not counted
        assert_eq!(near_share(&bins, 200), Some(0.75));
        assert_eq!(near_share(&[200, 0, 0], 200), None, "no hit within half");
    }

    /// *Kept on disk*: a profile's factors are stored exactly and read back instead of found
    /// again; a file that does not read as factors is found again and written over.
    #[test]
    fn a_profiles_factors_kept_on_disk_read_back_exactly() {
        let dir = std::env::temp_dir().join(format!("fcsim-shape-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let s = ProfileSpec::parse("profile=gasa-t1,scale=0.05").unwrap();
        let (t, m) = (s.targets(), donor(s.profile.donor).unwrap());
        let found = stored_shape(Some(&dir), &s, &t, &m).unwrap();
        assert!(found.1.alive > 0.0 && found.1.mean_size.is_none(), "{found:?}");
        let file = dir.join(shape_file(&s, &t));
        assert!(file.file_name().unwrap().to_str().unwrap().starts_with("gasa-t1-r"));
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(parse_shape(&text), Some(found.clone()));
        // What is on disk is what is used: factors changed by hand come back as they are.
        let changed = (found.0, Shape { alive: 0.25, mean_size: Some([4096.5, -0.0]), ..found.1.clone() });
        std::fs::write(&file, shape_text(&changed)).unwrap();
        assert_eq!(stored_shape(Some(&dir), &s, &t, &m).unwrap(), changed);
        // Cut short, another format, a stray line, other counts, a float not finite: found
        // again, the file written over.
        let other_counts = shape_text(&(found.0, Shape { requests: found.1.requests + 1, ..found.1.clone() }));
        let not_finite = shape_text(&(found.0, Shape { alive: f64::INFINITY, ..found.1.clone() }));
        for bad in [&text[..text.len() / 2], "fcsim-profile-shape 2\n", &format!("{text}x\n"), &other_counts, &not_finite] {
            std::fs::write(&file, bad).unwrap();
            assert_eq!(stored_shape(Some(&dir), &s, &t, &m).unwrap(), found);
            assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
        }
        // Another seed is another file; no folder, nothing kept.
        let other = ProfileSpec::parse("profile=gasa-t1,scale=0.05,seed=7").unwrap();
        assert_ne!(shape_file(&other, &t), shape_file(&s, &t));
        assert_eq!(stored_shape(None, &s, &t, &m).unwrap(), found);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The pages alive held (*Pages alive at once*): on gasa-t1 at scale 0.05 the share of
    /// LRU's hits within 1% of the working set is the donor's within 0.1 (measured 0.448
    /// against 0.456; before the pages alive were held, every hit within 1%), and its hit
    /// ratio grows from 1% to 10% of the working set (measured 0.427 → 0.954).
    #[test]
    fn a_gasa_profile_keeps_its_donors_share_of_near_hits() {
        let m = donor("tpcc").unwrap();
        let goal = near_share(&m.target, m.pages).unwrap();
        let mut g = open("profile=gasa-t1,scale=0.05").unwrap();
        let mut sd = crate::mrc::StackDistances::new();
        while let Some(r) = g.next_request().unwrap() {
            sd.access(r.offset / PAGE).unwrap();
        }
        let pages = sd.pages() as u64;
        let curve = sd.finish();
        let near = near_share(&super::super::model::page_bins(&curve), pages).unwrap();
        let hit = |share: f64| 1.0 - curve.miss_ratio((pages as f64 * share).round() as u64);
        eprintln!("gasa-t1 at 0.05: near {near:.3} (donor {goal:.3}); hit ratio at 1% {:.3}, 10% {:.3}", hit(0.01), hit(0.1));
        assert!((near - goal).abs() <= 0.1, "near {near:.3}, donor {goal:.3}");
        assert!(hit(0.1) > hit(0.01) + 0.2, "hits at 1% {:.3}, 10% {:.3}", hit(0.01), hit(0.1));
    }

    /// On the renewal model, the locality lever ([`super::super::locality`]) holds every op's p
    /// within the stack's 2.5 points of the table's, and the mean miss over the six ops within
    /// 1 point (without it, the donor's process gives p of 0.32-0.35 on both ops: a mean miss
    /// of 13 points). Measured at scale 0.05, seed 42, model format 5: t1 0.130 / 0.305, t2
    /// 0.170 / 0.162, t3 0.281 / 0.111. Known misses before: gasa-t1's writes (0.274, until the pages alive
    /// were held) and gasa-t3's reads (0.249, until the fit put each new page in its own
    /// window).
    #[test]
    fn gasa_renewal_profiles_keep_the_tables_locality() {
        let mut miss = 0.0;
        for name in ["gasa-t1", "gasa-t2", "gasa-t3"] {
            let spec = format!("profile={name},scale=0.05,model=renewal");
            let want = ProfileSpec::parse(&spec).unwrap().profile.locality.unwrap();
            let (on, off) = (locality(&spec), locality(&format!("{spec},ablate=locality")));
            for (o, (p, _)) in want.iter().enumerate() {
                eprintln!("{name} op {o}: {:.3}, without the lever {:.3}, table {p}", on[o], off[o]);
                miss += (on[o] - p).abs() / 6.0;
                assert!((on[o] - p).abs() <= 0.025, "{name} op {o}: p {:.3}, table {p}", on[o]);
            }
        }
        assert!(miss <= 0.01, "mean miss {miss:.3}");
    }

    /// The room ([`super::super::locality`]): gasa-t2's writes at scale 1 need at least 0.84 /
    /// 0.16 = 5.25 accesses a written page; the donor's split of new pages left them about 4.0
    /// and p 0.203. Held within the 4 points `tests/test_profiles.py` allows the profiles at
    /// scale 1 (measured 0.160, seed 42; the reads 0.170).
    #[test]
    fn gasa_t2_renewal_writes_reach_the_tables_locality_at_scale_one() {
        let spec = "profile=gasa-t2,model=renewal";
        let got = locality(spec);
        eprintln!("gasa-t2 at scale 1: read p {:.3}, write p {:.3}", got[0], got[1]);
        assert!((got[1] - 0.16).abs() <= 0.04, "write p {:.3}", got[1]);
        assert!((got[0] - 0.17).abs() <= 0.04, "read p {:.3}", got[0]);
    }

    /// The dynamic-allocation profiles' windows see locality (issue 26: the calibrated
    /// profiles' miss-ratio curve was flat in every window): LRU's miss ratio within each of 8
    /// windows, the cache kept across them, at 1%, 5% and 20% of the working set, falls with
    /// size, and a cache of 1% of the working set hits at least 10% of each window's page
    /// accesses: ten times what independent uniform draws give it (at most 1%).
    #[test]
    fn dynamic_profiles_have_locality_in_every_window() {
        for name in ["dynamic-financial1", "dynamic-homes", "dynamic-exchange", "dynamic-msnfs"] {
            let spec = format!("profile={name},scale=0.01,model=stack");
            let t = ProfileSpec::parse(&spec).unwrap().targets();
            let sizes = [0.01, 0.05, 0.2].map(|f| (f * t.pages as f64) as u64);
            let mut g = open(&spec).unwrap();
            let mut sd = crate::mrc::StackDistances::new();
            // Per window: accesses, and hits at each size.
            let mut w = [[0u64; 4]; 8];
            let mut i = 0u64;
            while let Some(r) = g.next_request().unwrap() {
                let k = (i * 8 / t.requests) as usize;
                i += 1;
                for p in r.offset / PAGE..=(r.offset + u64::from(r.len.max(1)) - 1) / PAGE {
                    let d = sd.access(p).unwrap();
                    w[k][0] += 1;
                    for (j, &s) in sizes.iter().enumerate() {
                        w[k][j + 1] += u64::from(d.is_some_and(|d| d <= s));
                    }
                }
            }
            for (k, c) in w.iter().enumerate() {
                let mr = |j: usize| 1.0 - c[j] as f64 / c[0] as f64;
                eprintln!("{name} window {k}: miss ratio {:.3} {:.3} {:.3}", mr(1), mr(2), mr(3));
                assert!(mr(1) > mr(2) && mr(2) > mr(3), "{name} window {k}: not falling");
                assert!(1.0 - mr(1) >= 0.1, "{name} window {k}: hit ratio {:.3} at 1%", 1.0 - mr(1));
            }
        }
    }

    /// Memory is bounded by the working set, not the length: four times the requests over the
    /// same pages holds the same state, under 64 bytes a page of the table's working set.
    #[test]
    fn memory_is_bounded_by_the_working_set() {
        let state = |spec: &str| {
            let s = ProfileSpec::parse(spec).unwrap();
            let mut g = open_stack(spec, &s).unwrap();
            while g.next_request().unwrap().is_some() {}
            g.state_bytes()
        };
        let spec = "profile=dynamic-exchange,scale=0.005,model=stack";
        let t = ProfileSpec::parse(spec).unwrap().targets();
        let short = state(spec);
        let long = state(&format!("{spec},requests={}", 4 * t.requests));
        eprintln!("{} pages: {short} B for {} requests, {long} B for 4x", t.pages, t.requests);
        assert!(long as f64 <= 1.1 * short as f64, "{long} B against {short} B");
        assert!(long as u64 <= 64 * t.pages, "{long} B for {} pages", t.pages);
    }
}
