//! The renewal clone (`synth:clone=PATH,model=renewal`, issue 40): each page's references are a
//! Markov renewal process whose state holds the page's long-term popularity (how many times it
//! is referenced over the trace, and so far) jointly with its recency (the gap before its last
//! reference), so that a clone keeps what separates policies, not only LRU's curve.
//!
//! **Why.** The stack-distance clone ([`super`]) draws each reuse from one distance distribution
//! and takes whatever page sits at that depth: every page at a depth is as likely to be reused,
//! whatever its history. Real traces are not like that: a page referenced once is seldom
//! referenced again, a page referenced many times soon is referenced again soon. That is what
//! frequency-aware policies (2Q, ARC, LIRS, S3-FIFO, SLRU, LARC) exploit and what the stack clone
//! loses (`bench/RESULTS.md`, "Trace clones: policy ranking": cloudphysics' clone keeps 66% of the
//! policy pairs' order at 10% of the working set, arc_P12's 34%). 2DIO (Y. Wang, I. Khor, P.
//! Desnoyers, "2DIO: Configurable and Cache-Accurate Trace Generation for Storage Benchmarking",
//! EuroSys '26) keeps both by mixing an inter-reference-distance process with an independent
//! reference model; this model keeps both in one process per page, fitted rather than mixed.
//!
//! **Time** is the original's page accesses (a tick is one page access) but the second access
//! of a page two sequential requests share (*Shared pages* below: it is the first access
//! continued, not a reference): gaps are counted in ticks, and a clone's ticks run at the
//! original's pace, its shared pages taking no tick either, so its page accesses are its ticks
//! and its shared pages, as the original's are.
//!
//! **The model** (counts, saved and read back exactly, in the `renewal` lines of a model file):
//!
//! - *Class.* A page's class is how many times the original references it over its run (1, 2,
//!   3-4, ..., 4,097 and more: 14 count bins): its long-term popularity, which a recency model
//!   loses (a page referenced once, of which real traces have many, is never referenced again; a
//!   page referenced thousands of times keeps coming back), and its pace (model format 5, below).
//!   Per window and op, the classes of the pages first referenced; a clone draws a new request's
//!   class from them (its pages share it).
//! - *Pace* (model format 5). Pages of one count bin differ in how soon they come back, and keep
//!   to it: a page's pace is the third of its count bin's pages (of two references or more) its
//!   mean log gap over the original's run falls in, fast, middle or slow (a page of one
//!   reference has pace 0); the class is the count bin and the pace (42 classes). Why: on
//!   arc_P3, of the spread of log gaps among the pages of 17-32 references, 31% lies between
//!   pages (each page's mean log gap apart from the others') and the rest within a page; the
//!   clone, whose states knew the previous gap alone, had 5%: every hot page took short gaps
//!   now and then and long ones between, so a policy that keeps pages hit before (SLRU, SIEVE,
//!   ARC) kept them all through their long gaps, where the original's slow pages never come back
//!   in time and its fast ones hit under LRU too. At 10% of arc_P3's working set SLRU hit 0.381
//!   on the clone against the original's 0.309, SIEVE 0.389 against 0.328 (LRU 0.284 against
//!   0.265). The pace is fitted in the first pass (the mean of log2 of each page's gaps, in the
//!   ticks the second pass counts) and the thirds cut per count bin ([`paces`]): it scales with
//!   the trace, as the gaps do. Chosen over the previous gaps' mean as a further dimension of the
//!   state (short, usual or long for the page so far, an average over its last 16 gaps: arc_P3
//!   at 10% 0.028 → 0.025 on seeds 1-2, between-page share 5% → 11%): a pace known from the
//!   first reference holds from the first gap, which a page's own history cannot. Measured
//!   with `bench/clone_panel.py --seeds 5` (`bench/RESULTS.md`, "Trace clones: policy
//!   ranking"; before: its run on fcsim 525d03e2, model format 4; mean over seeds 1-5):
//!   arc_P3's panel error at 10% of the working set 0.027 → 0.018 [0.015, 0.020] (at 1% 0.005
//!   → 0.007); cloudphysics 0.010/0.011 → 0.010/0.009 at 1%/10%, pairs kept at 10% 96% → 99%,
//!   LRU's curve 0.018 → 0.012; arc_OLTP 0.015/0.014 → 0.009/0.008; diskmon's pairs kept at 10%
//!   93% → 97%, arc_P12's 93% → 95%; LRU's curve 0.011 → 0.007 on systor, 0.012 → 0.008 on
//!   arc_OLTP. Worse: the msr excerpt at 1%, 0.020 → 0.025 [0.010, 0.051] (1,000 requests: its
//!   count bins of 5 references and more hold 17, 8 and 2 pages, now split three ways), blkparse
//!   0.018/0.014 → 0.020/0.016, arc_OLTP's pairs kept at 10% 94% → 91%; tencent, arc_P2, wsrch
//!   and tpcc within 0.001.
//!   Three paces is fcsim's choice, made before measuring, not a figure from a source; the
//!   alternatives, measured after (`bench/clone_panel.py`'s panel, seeds 1-3, panel error at 1%
//!   / 10% of the working set): two paces, arc_P3 0.005/0.024 (over the target at 10%),
//!   cloudphysics 0.008/0.007, diskmon 0.004/0.005; three, 0.008/0.018, 0.012/0.010,
//!   0.003/0.006; four, 0.007/0.018, 0.014/0.012, 0.006/0.007.
//!   `ablate=pace` pools the states over the paces of a count bin (the paces are still drawn
//!   with their sizes).
//! - *Class and size* (model format 4). Per op and class, the new requests whose first new page
//!   is of that class, by the pages they span (1, 2, 3-4, 5-8, ...), and their pages in all: a
//!   trace's most referenced pages come in small requests (cloudphysics' pages of 17 and more
//!   references in new requests of 1.8-4.1 pages on average, its others in 8.2-15.5; the msr
//!   excerpt's two pages of 33 and 34 references in two one-page writes, its once-referenced
//!   pages in requests of 3.0), so a class drawn regardless of size gave a hot class a large
//!   request's pages on some seeds and none on others. A clone draws a new request's class
//!   first, from the window's new pages of each class over the mean pages of that class's
//!   requests (so each class still gets its pages), then its size from that class's requests:
//!   their size bin, then a size of the op in that bin ([`ClassSizes`]; a class with fewer than
//!   [`MIN_SEEN`] requests pooled with the classes around it).
//! - *Reuse.* Every page access is in a state: the quarter of the trace it falls in (a trace's
//!   reuse drifts over its run; pooled with `phases=1`, below) × the page's class × its
//!   references so far (1, 2, 3-4, 5-8, ..., 65 and more: 8 bins) × the octave of the gap since
//!   its previous reference (none, 1, 2-3, 4-7, ...) × the access's op. Per state, the gaps to
//!   the page's next reference, by bin (exact below 8, then 4 bins per power of two), and the
//!   pages whose last reference it was (their ends: with its class known, a page's last
//!   reference in the trace ends it, nothing is censored). A clone draws the next gap, or the
//!   end, from these counts.
//! - *Op.* The gaps above are kept apart by the op of the reference that ends them, so the
//!   next reference's op is drawn with its gap: per state and gap bin, as often a read or a
//!   write as in the original (read-after-write, write-after-write, ... at page level, and how
//!   soon: a write soon rewritten is not a write soon read).
//! - *New pages.* Per window (64 of the trace's ticks) and op, the pages first referenced by
//!   that op; per op, the sizes (bytes, offset in the page) of the requests that touch a new
//!   page (wherever in them: a file grown by a request that starts on its last known page and
//!   runs on into new ones is one), and how many of them start where the previous request
//!   ended. Each new page counts in the window of its own tick (the first pass gives the
//!   trace's ticks). Until fcsim e46753a8 the fit counted them in chunks of 1,024 ticks, each
//!   in the window of its first tick, which on a trace under 65,536 ticks is a few windows
//!   (the 1,000-request msr excerpt's new pages fell in windows 0, 26 and 53 of 64): its
//!   clone took its new pages in three bursts and its first reuses came late. Fixed
//!   (`bench/clone_panel.py --seeds 5`, before → after: pairs kept at 1% / 10%, panel error,
//!   LRU curve): the msr excerpt 72/82% → 90/94%, 0.032/0.064 → 0.020/0.034, 0.041 → 0.036;
//!   systor 0.012/0.010 → 0.006/0.009; diskmon 0.008/0.008 → 0.004/0.005. Worse: cloudphysics
//!   (1.1 M ticks; 3,970 of its 269,210 new pages move, by less than a chunk, to the next
//!   window) 0.006/0.006 → 0.010/0.011, LRU curve 0.013 → 0.018, and over seeds 1-10 0.0130
//!   [0.010, 0.020] → 0.0164 [0.011, 0.022]: about two standard errors of the mean, from a
//!   shift that small; not explained. arc_P3 at 10% 0.025 → 0.027; the rest within 0.002.
//!   Noticed there, with either fit: the clones take cloudphysics' new pages later than the
//!   original does mid-trace (the share of its pages first touched by half of the page
//!   accesses: 0.926, its clones 0.859-0.878 on seeds 1-3; by 6/16, 0.730 against
//!   0.681-0.687), although the windows' counts are the original's. Why (seed 1, counted
//!   per window of ticks in `touch` for this, not kept): the clone keeps each window's new
//!   pages (within 5% where a window has more than 4,000) but not its reuses. A reuse comes
//!   when its page's gap says, and the gaps know the quarter, not the window, so the reuses do
//!   not make way for a burst of new pages as the original's do. In windows 16-18 the
//!   original's 5,666-8,667 new pages a window come with 9,175-12,175 reuses, the clone's with
//!   17,496-19,337; in the quiet windows 27-28 the original has 15,848-17,610 reuses, the
//!   clone 10,707-10,731. A clone's window of 17,841 ticks thus holds 0.55-1.49 times the
//!   original's page accesses: counted by page accesses, its new pages come later where the
//!   original's burst, and catch up where it is quiet. The same, smaller, on arc_P12 (by 6/16
//!   of the page accesses 0.686, its clones 0.617-0.627 on seeds 1-2) and diskmon (0.505,
//!   0.472-0.477). Not changed here: the reuses would have to make way for the new pages (for
//!   example, gaps and the new pages' budget counted in reuse ticks), a change to the fit and
//!   the clock that reruns the panel and every reproduction the profiles feed.
//! - *Reuse requests.* Per op, the pages of the requests that touch no new page, and how many
//!   of them start where the previous request ended; since model format 6, the pages by the
//!   bin ([`sbin`]: 1, 2, 3-4, 5-8, ... pages) of the request that last referenced the reuse
//!   request's first page (of its own: not a page it shares with the request before). A
//!   reuse request's length follows the request before on its pages: of cloudphysics' reads
//!   after a request of 3-4 pages, 94% are of 3-4 pages, after one of 17-32+ pages 63% are of
//!   17 or more (and 30% of 3-4); of diskmon's reads after a one-page request 91% are of one
//!   page, of its writes after one of 9-16 pages 70% are of 9-16 (the originals' requests,
//!   counted for this change). See *Request sizes* for what it buys.
//! - *Shared pages* (model format 3). A request that starts where the request before it ended,
//!   mid-page, with its op, and runs on past that page ([`shares_page`]: unaligned sequential
//!   requests, a 4 KiB write 512 bytes into a page after the one before it) shares its first
//!   page with that one. The page's second access is request structure, not a reference of the
//!   page: no tick, no gap, not in its references so far nor in its class's count. Per kind
//!   (new requests, reuse requests) and op: how many requests share their first page so
//!   (`renewal shared`). Still a reference of its own: a request of the other op (a read after
//!   a write of the page, as any other), and one that ends on the shared page (the ARC traces'
//!   512-byte reads), which has no page of its own a clone could issue it on.
//!
//! **Generation.** A clock of ticks, a calendar of the pages due ([`super::calendar`]), a budget
//! of new pages. At each tick the pages due are taken in page order and joined into blocks:
//! pages in a row with the same op, and the pages that follow in the row if they are due within
//! as many ticks as the block has pages so far (a request's pages take one tick each in the
//! original), up to the original's largest request. A block's pages share one set of random
//! numbers (below), and the block is issued as requests of the lengths of the original's reuse
//! requests of its op and of the bin of the request that last referenced each one's first page,
//! drawn so that they tile the block ([`super::tiling`]), the clone's mean reuse request held to
//! the original's, queued so that a request follows on from the one before it with the
//! original's share of reuse requests that do (see *Request sizes* below). Then each op's budget grows by the window's new pages of that
//! op per tick, and while it covers the op's next new request (its class and size drawn
//! together, above; the sizes of the op's requests that touch a new page, without replacement,
//! for a model without class sizes or a profile) a *run* of new requests is issued on
//! pages never used before, after [`GAP`] unused page number: its first request, then, with the
//! original's share of such requests that start where the previous request ended, one more
//! right after it (on the last page of the one before, at the byte after it, with the
//! original's share of those that share their first page; else on the next page), and so on,
//! all at this tick (as the original's sequential requests follow one
//! another), each paid from the budget, which may go below zero (the next run waits until it is
//! paid back). Every page a request touches takes its next state and draws its gap to its next
//! reference from that state's distribution, and the op of that reference. A block's pages draw
//! with *the same* random numbers (common random numbers), and so do a run's new requests (each
//! of which draws its own class): pages with the same history stay together and come back together,
//! as a file written in pieces is read back, while pages whose histories differ drift apart. A
//! request that covers exactly the pages of the new request that first touched them keeps its
//! byte length and offset; another is page-aligned. Ticks with nothing to do are skipped in one
//! step.
//!
//! **Request sizes** (the original's sizes and sequential runs, kept since this change; before
//! it, requests were the blocks themselves and new requests took the sizes of requests whose
//! first page is new). Measured with `examples/request_shape.rs`, seed 1, original → before →
//! now: mean request cloudphysics 36.1 → 15.6 → 28.0 KiB, tencent 29.7 → 27.9 → 27.5, arc_P12
//! 12.1 → 19.0 → 10.3, diskmon 23.3 → 38.5 → 18.3; share of requests that start where the one
//! before ended 0.260 → 0.000 → 0.213, 0.021 → 0.013 → 0.017, 0.162 → 0.001 → 0.132, 0.255 →
//! 0.070 → 0.241. Choices:
//!
//! - New requests are the original's requests that touch a new page, not only those whose
//!   first page is new (cloudphysics: 22,045 of its 113,872 requests touch a new page, 48.5 KiB
//!   on average; 4,902 start on one, and their sizes made the clone's requests 16 KiB).
//! - A run of new requests is issued at once and shares its random numbers, so that it comes
//!   back as one block while its pages' states agree, cut again into requests: sequential then
//!   as well. Each request draws its own class, as before: with one class a run, a run's pages
//!   never drifted apart, and cloudphysics' panel error at 1% of the working set rose from
//!   0.004 to 0.019 [0.004, 0.026] over 5 seeds (`bench/clone_panel.py`). A set of random
//!   numbers for each request of a run instead gave the same sizes and sequential share and
//!   cloudphysics' panel error 0.011 and 0.013 at 1% and 10%, LRU curve 0.015 (shared: 0.010,
//!   0.008, 0.012). Sequential new requests spread over the ticks by the budget (the first
//!   design) came back at as many ticks, between other requests: 0.000-0.094 of the requests
//!   followed on.
//!
//! **What it costs the ranking** (`bench/clone_panel.py --seeds 5 --generators renewal`, mean
//! [min, max]; before → now): separated pairs kept at 1% / 10% of the working set, cloudphysics
//! 99/96% → 100/96%, tencent 100/100% → 99/99%, arc_P12 100/95% → 100/95%, diskmon 100/97% →
//! 100/98%; panel error at 1%, 0.004 → 0.010 [0.002, 0.021], 0.003 → 0.002, 0.005 → 0.005,
//! 0.006 → 0.010 [0.004, 0.023]; at 10%, 0.006 → 0.008, 0.005 → 0.006, 0.014 → 0.011, 0.006
//! → 0.009 [0.002, 0.023]; LRU curve 0.011 → 0.012, 0.005 → 0.005, 0.011 → 0.009, 0.005 →
//! 0.008 [0.004, 0.022]. The error grows on cloudphysics and diskmon, whose new requests are
//! now larger (cloudphysics 48.5 KiB, was 16.4): more pages share one draw, so a seed's hit
//! ratios spread more; one seed of five passes 0.02 on each.
//! - Blocks are cut by the original's reuse request lengths, not at the boundaries of the new
//!   requests that first touched the pages: cut at those, a page never leaves the request that
//!   first touched it, and every request was a new request's size (cloudphysics 48.6 KiB,
//!   arc_P12 20.6 against 12.1). A block is cut with one set of random numbers: cut with a set
//!   per request, the pieces drifted apart and blocks shrank run after run (cloudphysics 15.4
//!   KiB, arc_P12 5.5).
//! - A block's pieces are queued as runs, each kept in page order, the runs last first: a run's
//!   first request then does not follow on from the last one queued (in page order, every cut
//!   followed on: 0.48, 0.14, 0.59 and 0.63 of the requests on the four traces above). A block's first
//!   request never follows on, so a link within a block is kept with the original's share × the
//!   requests cut so far / (those requests - the blocks), the counts of the clone itself.
//!   The order of requests due at one tick is the model's to choose: they are all due then.
//! - A model without `renewal reuse` lines (a format 2 model saved before this change; format 2
//!   models are now refused, see *Shared pages*) clones with its blocks issued whole.
//! - Until model format 6 still smaller than the original's (cloudphysics 27.7 KiB against
//!   36.1, arc_P12 8.8 against 12.1, diskmon 17.6 against 23.3, seed 1), as many more requests
//!   for the same pages. Counted on model format 5 (seed 1, the blocks `cut` was given, not
//!   kept): on cloudphysics 66,818 blocks of 818,591 pages (12.3 pages each) were cut into
//!   131,411 requests of 6.2 pages, 52,582 of them cut short, where the lengths drawn averaged
//!   9.2; on diskmon 19,288 blocks of 8.6 pages into 58,122 requests (12,321 cut short); on
//!   arc_P12 388,865 blocks of 4.1 pages into 754,334 (232,601 cut short). Lengths conditioned
//!   on tiling the block ([`super::tiling`]) with each op's lengths alone moved little (seed 1:
//!   cloudphysics 27.7 → 29.1 KiB, diskmon 17.6 → 17.9, arc_P12 8.8 → 8.5, systor 32.5 →
//!   31.8): the blocks were long enough (diskmon's reads: blocks of 8.6 pages, the original's
//!   reuse reads 3.9), the lengths were wrong for them. A block is mostly the pages of a
//!   request come back; drawn from the op's lengths alone, its pieces took the commonest
//!   (half of diskmon's reuse reads are one page), and the pages of a one-page piece, due
//!   again with the block, were cut into one-page pieces again. Model format 6 draws each
//!   piece's length from the lengths that followed a request of the bin of the one that last
//!   referenced its first page (*Reuse requests* above), tiling the block, and holds the
//!   clone's mean reuse request to the original's as a profile holds its mean size
//!   ([`Renewal::reuse_off`]: after 64 requests of an op, while its mean pages are more than
//!   1% off, a piece takes the longer, or shorter, of two lengths drawn). Over seeds 1-5
//!   (`bench/RESULTS.md`, "Trace clones: request sizes"; format 5 from the same example on
//!   fcsim 7b6da30b): mean request (KiB) original, format 5, format 6: cloudphysics 36.1, 27.4,
//!   37.6; diskmon 23.3, 17.5, 23.1; arc_P12 12.1, 8.8, 12.3; arc_P2 9.6, 6.8, 9.1; arc_P3 8.2,
//!   6.1, 8.3; tencent 29.7, 27.6, 28.9; requests cloudphysics 113,872, 154,704, 110,845,
//!   arc_P12 547,147, 819,998, 564,848. Each part alone (seed 1): the bins without the mean
//!   held, cloudphysics 29.8 KiB, diskmon 18.7 (its reads 11.8, the original's 16.4), tencent
//!   29.4, arc_P12 9.7; the mean held with the lengths pooled (`ablate=extents`), diskmon
//!   within 3% but cloudphysics 55,471 reads against the original's 46,974 (the bins: 47,970)
//!   and arc_P12 712,654 requests (the bins: 580,853), the longer of two lengths not enough
//!   where the pooled lengths are short. Not changed: systor (1,000 requests) 32.4 KiB against
//!   38.2 before and after, its clone making 1,188 requests for the original's 999 (few of
//!   them reuses: its new requests are the shortfall); the share of requests that follow on,
//!   closer on arc_P12 (0.126 → 0.146, original 0.162) and diskmon, lower on cloudphysics
//!   (0.267 → 0.234 [0.198, 0.263], original 0.260: fewer pieces a block, fewer links in it).
//!
//! **Scale and length.** `scale=K`: gaps above [`super::UNSCALED`] ticks are multiplied by K,
//! and the clone runs K times the original's ticks, so it touches K times its pages with the
//! same reuse structure at K times the distances. Without `length=`, the clone runs the
//! original's ticks × K: its page accesses are about the original's × K, and its request count
//! is whatever the calendar forms (see below). `length=N` gives N requests: the first N when
//! that is fewer (a prefix, whose working set is what those requests touch); when it is more,
//! further runs of the original's ticks × K follow, one after another, each on new pages (the
//! pages of a run end with it): the workload run again on new data, with the original's time
//! shape each time (its windows and quarters), so that any stretch of a long clone is read as
//! the clone's own run and its working set grows with its length. Measured on cloudphysics
//! (`scale=1`, seed 3, model format 3): ten runs' read hit ratio under LRU is 0.0804 at 2,692
//! pages and 0.1304 at 26,921, one run's 0.0793 and 0.1302 (the original's 0.0758 and
//! 0.1219). Chosen over the
//! two ways that keep a working set of K times the original's: windows stretched over N
//! requests (this clone's first design) and runs that go on with the pages still alive. A
//! page's references are its own process, so stretched windows do not lengthen them: past
//! about 20x cloudphysics' requests at `scale=10` the clone outran its windows, went on at its
//! last window's pace and grew to 570 MB at 40x. Pages that go on into the next run pile up
//! (the hottest rarely end: 270 MB at 40x, 380 MB at 100x) and make every later run hotter
//! than the first. Repeating the last quarter alone drifted too: cloudphysics ends in a phase
//! of new writes, and a 10x clone's read hit ratio rose to 0.44 at 2,692 pages.
//!
//! A page's state takes its previous gap in the original's ticks (a stretched gap divided by K
//! again), so a scaled page passes through the original's states: before this, a stretched gap
//! moved the page to the states of gaps K times longer, and a `scale=10` clone of cloudphysics
//! hit 0.17 at 1% of its working set under LRU against the original's 0.10 (now 0.10).
//!
//! **Choices the sources leave open**, and what fcsim does:
//!
//! - A state with fewer than [`MIN_SEEN`] observations (gaps and ends) pools with its
//!   neighbours, the first of: every quarter; every octave; both; every quarter, octave and
//!   references-so-far bin; and every class too (its op alone).
//! - A page of a class below the last ends when its references reach its class's count (2 for
//!   class 2, 4 for 3-4, ...): no page of the original passes its class, so the states past it
//!   were never seen, and their pooled gaps, of pages that go on, kept such pages going. On the
//!   1,000-request msr excerpt (its most referenced pages have 33 and 34 references) a seed's
//!   clone had ten pages of 77-91 references, a third of its page accesses; over 5 seeds the
//!   panel's error went 0.058 [0.023, 0.175] → 0.043 [0.022, 0.069] at 1% of the working set,
//!   0.060 → 0.051 at 10%, LRU's curve 0.043 [0.015, 0.123] → 0.037 [0.018, 0.058]. Not on a
//!   profile (its pages go on past the donor's classes) nor with `ablate=frequency`.
//! - A new request's class is drawn with replacement from its window's new pages of its op, so
//!   a seed's clone can hold none or many of a class the original has one or two pages of (the
//!   msr excerpt's two pages of 33 and 34 references: none on seed 2, ten on seed 5, whose
//!   every hit ratio is 0.02-0.11 above the original's at 1% of the working set). Tried and
//!   not kept, with `bench/clone_panel.py --seeds 5 --generators renewal` (panel error at 1% /
//!   10%, LRU curve; against 0.043/0.051, 0.037 on the msr excerpt and 0.010/0.009, 0.012 on
//!   cloudphysics): an urn of each window's classes without replacement, a request's pages
//!   taken out of its class: msr 0.027/0.039, 0.024, but cloudphysics 0.028/0.028, 0.031 [0.018,
//!   0.064] (a class with fewer pages left than a request still takes the whole request, and
//!   every class leaves the urn each pass); the same with the overdraw kept as a debt: msr
//!   0.028/0.035, 0.023, tencent, systor and diskmon better (0.003/0.002, 0.006/0.005,
//!   0.006/0.006), cloudphysics 0.028 [0.003, 0.080] (seed 2: 18 pages of 2,049-4,096
//!   references against the original's one, 63,662 accesses against 2,683); the request's
//!   pages drawn from the urn one by one and the request taking the first one's class (as
//!   often as with replacement): msr 0.044/0.058, 0.055, cloudphysics 0.011/0.011, 0.017.
//!   A class rarer than a request's pages cannot be given its count while a request's pages
//!   share one class; with replacement it is given it on average. Tried again on model format
//!   5, with the class drawn with its size: each class weighted by its window's new pages not
//!   yet drawn (× K), a request's pages taken off its class, the window's counts again once
//!   spent. The msr excerpt's classes came closer to the original's over seeds 1-8 (pages of
//!   9-16 references 3-13 against 2-16, the original's 8; of 33-64, 1-5 against 0-4, the
//!   original's 2) but its panel did not: 0.023/0.042, LRU curve 0.039, against 0.025/0.035,
//!   0.036 (seeds 1-5). Not kept.
//! - *What drawing the class with the size buys* (`bench/clone_panel.py --seeds 5 --generators
//!   renewal`, seeds 1-5, panel error at 1% / 10% of the working set and LRU's curve, mean;
//!   before: `ablate=sizes`'s, the draw of model format 3): cloudphysics 0.010/0.009, 0.012 →
//!   0.006/0.006, 0.013; tencent 0.003/0.006, 0.007 → 0.002/0.005, 0.005; diskmon 0.009/0.009,
//!   0.008 → 0.008/0.008, 0.007; blkparse 0.021/0.017, 0.015 → 0.019/0.014, 0.011; arc_P12
//!   0.004/0.009, 0.010 → 0.005/0.006, 0.005; the msr excerpt 0.043/0.051, 0.037 → 0.032/0.064,
//!   0.041 (pairs kept 62/79% → 72/82%); worse: systor 0.007/0.008, 0.009 → 0.012/0.010, 0.012,
//!   arc_OLTP 0.010/0.008 → 0.014 [0.008, 0.031] / 0.011 (seeds 1 and 2 0.02-0.03 high at 1%),
//!   arc_P2 0.014/0.009 → 0.016/0.010; arc_P3, wsrch and tpcc within 0.001. Its cost: the
//!   mean request (`examples/request_shape.rs`, seed 1) falls where hot pages come in small new
//!   requests and their reuse blocks with them, arc_P12 10.0 → 8.8 KiB (original 12.1),
//!   cloudphysics 28.6 → 27.8 (36.1), diskmon 18.4 → 18.1 (23.3), and rises on systor, 30.3 →
//!   31.8 (38.2); the generator's rate at `scale=10` is the same within the machine's noise
//!   (`examples/clone_speed.rs`, one release binary with and without `ablate=sizes`, medians of
//!   3 interleaved runs: cloudphysics 2.04 against 2.03 M requests a second, diskmon 2.70
//!   against 2.83). The class's size
//!   taken instead as a weight on the class after the size was drawn (P(size | class) / mean
//!   pages, the size from all of the op's) drew too few hot pages where sizes drift over a
//!   trace's run (diskmon: 118 pages of 9-16 references against the original's 275, every hit
//!   ratio 0.01-0.02 low): a window's sizes are the whole trace's, its classes its own.
//! - Volumes are keyed apart in the fit, as fcsim keys them; the clone is one volume, 0.
//! - Trims are skipped. Arrivals are the stack clone's ([`super::arrivals`]): independent of
//!   op and address, the rate profile replayed with the cascade below it.
//! - A new request shares a page with the request before it only as a sequential one does (it
//!   starts on that one's last page, at the byte after it; its other pages are numbered apart
//!   from every page in use), so a file the original grows by requests that start on its last
//!   known page and run on is cloned as requests on new pages only. Arrivals follow the
//!   original's request rate, so where the clone's requests are more numerous than the
//!   original's (about 1.36x on cloudphysics), its span is longer by the same ratio.
//! - *Shared pages, and what they cost* (model format 3). Before, the fit counted a page shared
//!   by two sequential requests as a second reference, a gap of 1, while a clone's follow-on new
//!   request started on the next page: request structure turned into popularity. On
//!   blkparse_java_50k_events 13,823 of its 15,503 page reuses are such shared pages (13,668
//!   of them the first pages of its sequential new writes, every one of which shares: unaligned
//!   4 KiB writes), and its clone's panel error was 0.099 at 1% of the working set.
//!   Sharing the page in generation alone, with the fit unchanged, recovered blkparse but took
//!   the page's real reuse (a page ends at its class's count, and the shared access was one of
//!   them): LRU's hit ratio at 1% fell on cloudphysics from 0.103 to 0.052 (original about
//!   0.10) and on diskmon from 0.048 to 0.021. Now the fit leaves the shared access out, and a
//!   clone's follow-on new request (`new_run`) and reuse piece (`cut`) start on the last page
//!   of the one before with the original's share (a piece of a block shares with the link's
//!   probability × the share of the original's sequential reuse requests that share), the
//!   shared page drawing nothing (`touch`: the same reference continued). The shared request's
//!   bytes are kept: it starts where the one before ended (a reuse piece in the middle of the
//!   shared page, the one before ending there). Counting the pages that end on the shared page
//!   as structure too cost the ARC traces their 512-byte reads' hits (arc_OLTP's panel error at
//!   1%: 0.010 → 0.062 over 5 seeds), so they stay references. Measured with
//!   `bench/clone_panel.py --seeds 5 --generators renewal` (seeds 1-5, mean [min, max]; before:
//!   `bench/RESULTS.md`, "Trace clones: policy ranking", fcsim fa0aa55d), kept 1% / 10%, panel
//!   error 1% / 10%, LRU curve: blkparse 95/100% → 94/100%, 0.099/0.042 → 0.021 [0.019, 0.024]
//!   / 0.017 [0.014, 0.021], 0.016 → 0.015; cloudphysics 100/94% → 97/98%, 0.007/0.007 →
//!   0.010 [0.002, 0.016] / 0.009, 0.012 → 0.012; diskmon 100/98% → 100/97%, 0.010/0.009 →
//!   0.009/0.009, 0.008 → 0.008; systor 100/100% → 99/100%, 0.016/0.010 → 0.007/0.008; tencent
//!   0.003/0.007 → 0.003/0.006; arc_P12 0.005/0.012 → 0.004/0.009; arc_P3 unchanged at
//!   0.005/0.025; arc_P2 100/100% → 100/97%, 0.006/0.006 → 0.014 [0.013, 0.016] / 0.009 (its
//!   multi-block reads share pages: 64,290 of its 69,400 sequential reuse requests); the msr
//!   excerpt, arc_OLTP and wsrch share no page that runs on and clone as before (the same
//!   figures), tpcc shares 2 (0.001 before and after).
//!   With the new requests sharing and the reuse pieces not: cloudphysics 0.027 [0.016, 0.032]
//!   / 0.020, arc_P2 0.020 / 0.014 (5 seeds). What blkparse still missed on format 3 (every
//!   policy's hit ratio about 0.019 low at both sizes, seed 1): its clone's runs start on
//!   2.2-2.3 new pages against the original's 1.58 (a run's first request takes the size of any
//!   new request, the original's two-page follow-ons included), 18,440 pages against 17,901
//!   (seed 1); with the class drawn with the size (format 4, *Class and size*) its panel error
//!   is 0.019/0.014.
//! - Memory: a 32-byte entry per page number, held in chunks that are freed once every page
//!   in them has ended ([`super::table`]: a page whose draw is the end is never referenced
//!   again), and the calendar (an entry per run of pages in a row due at one tick, and one
//!   per page that joined a request before its tick until that tick passes; the entries of a
//!   run's pages pass within about a run): both follow the pages alive at once, not the length. At `scale=10` on
//!   cloudphysics the peak RSS is 105 MiB at its own run (about 13x its requests), at 100x and
//!   at 200x (`bench/RESULTS.md`, "Trace clones: generation speed and memory"; 108, 111 and
//!   112 MiB with the calendar's windows of 2^16 ticks, 159, 176 and 180 MiB with an entry per
//!   page).
//! - Where the time goes (callgrind by source line, a 10x cloudphysics clone, instructions per
//!   request, after the fourth speed round of issue 40: 3,453 → 2,782): touching a request's
//!   pages 317 (662 before a page that repeats the page before's state took its draw), code
//!   the compiler inlined from the standard library (bounds checks, iterators) 733, arrival
//!   times 315, the page table 238, the step (due pages, blocks, budget) 229, the calendar 166,
//!   random numbers 139, the size urns 92, new requests 57, the tick's run, window and quarter
//!   63 (143 before they were kept for the ticks they hold). By time (`perf`), about 18% is the
//!   read-ahead's loads waiting on page-table misses (32-byte entries, about 90 MB here), 11%
//!   the arrival thread, 7% the calendar's pushes: a 16-byte entry would halve the table's
//!   lines but needs 32-bit ticks, which a long or large-scale clone passes.
//! - The machine's limit (issue 40's 5 M requests per CPU second at 10x): a minimal renewal
//!   generator written for the benchmark (`crates/fcsim-bench/benches/clone_limit.rs`: one gap
//!   per request's pages by their references-so-far bin, a two-level calendar, new pages at the
//!   trace's rate; none of this module's states, re-cut blocks, sequential runs, shared pages,
//!   urns or arrival thread) makes 5.2-38 M requests per CPU second at 10x: 5.4 M on
//!   cloudphysics, 5.2 M on arc_P12, 6.3 M on arc_P2 (load about 1; a run before it, at load
//!   0.5-1, measured 3.9, 4.5 and 4.8 M there: the rates move that much between runs, the
//!   ratios hold). This clone makes 0.23-0.45x of the minimal's requests per CPU second on the
//!   six longest clones (cloudphysics, diskmon, the ARC traces; 0.25-0.47x in the run before)
//!   and 0.08-0.16x on the six others (0.07-0.17x), where this clone's building (the state
//!   pooling, about 5 ms, a third of a 10x msr excerpt's time under `perf`) and its work per
//!   request (arrival times, the tick's bookkeeping) decide (`bench/RESULTS.md`, "Trace
//!   clones: generation speed and memory").
//!
//! Each part can be turned off for an ablation (`synth:clone=...,model=renewal,ablate=A+B`):
//! `pace` pools the states over the paces (*Pace*),
//! `frequency` pools the states over the classes (counts and paces) and the references-so-far
//! bins (recency alone), `recency` over
//! the previous gap's octaves (frequency alone), `together` draws each page's gap with its own
//! random numbers (no requests re-formed), `ops` draws every op from the trace's share of
//! writes among new pages, `requests` issues each block as one request (not cut into the
//! original's reuse request lengths), `extents` cuts it by its op's lengths alone (pooled over
//! the bins of the request before, as model format 5 did, but tiled and the mean held), `sizes` draws a new request's class regardless of its
//! size (from its window's new pages) and its size from all of the op's.
//!
//! **Quarters** are kept apart by default (`phases=4`); `phases=1` pools them (a stationary
//! clone). Measured with `bench/clone_panel.py` before requests kept the original's sizes (5
//! seeds, every shipped trace; `bench/RESULTS.md`, "Trace clones: policy ranking"): with the classes in the state, keeping them apart is as
//! good or better on every trace but the 1,000-request msr excerpt (arc_OLTP keeps 100% and 91%
//! of the policy pairs in order at 1% and 10% of the working set against 95% and 78% pooled,
//! diskmon 97% at 10% against 85%; LRU's curve within 0.02 on 11 of 12 traces against 9).
//! Before the classes, pooled was the better choice: a quarter's states held fewer pages, and
//! pages that reached its most referenced bin stayed hot too long (cloudphysics' hit ratios
//! 0.08 from the original's).

use super::calendar::{Calendar, Run};
use super::locality::Locality;
use super::model::{clip, log_bin, log_bin_range, Values, FORMAT, PAGE, WINDOWS};
use super::table::Table;
use super::tiling::Tiling;
use super::{Bag, UNSCALED};
use crate::error::{Error, Result};
use crate::request::{HostRequest, KeyUnit, Op, PageSplitter};
use crate::trace::{Progress, TraceReader};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::fmt::Write as _;

/// References-so-far bins: 1, 2, 3-4, 5-8, 9-16, 17-32, 33-64, 65 and more.
pub const JBINS: usize = 8;
/// Octaves of the previous gap: 0 none (a first reference), k for gaps in [2^(k-1), 2^k).
pub const OCTAVES: usize = 48;
/// Phases: quarters of the trace's ticks (a trace's reuse drifts over its run).
pub const PHASES: usize = 4;
/// Bins of a page's references over the whole trace: 1, 2, 3-4, ..., 4,097 and more.
pub const COUNTS: usize = 14;
/// Paces of the pages of a count bin: thirds by their mean log gap over the trace (*Pace*).
pub const PACES: usize = 3;
/// Classes: count bin + [`COUNTS`] × pace.
pub const CLASSES: usize = COUNTS * PACES;
/// States: phase × class × references-so-far bin × previous gap octave × op.
pub const STATES: usize = PHASES * CLASSES * JBINS * OCTAVES * 2;
/// Fewest observations a state's own distribution needs.
pub const MIN_SEEN: u64 = 16;
/// Unused page numbers before a new request that does not follow on from the previous one: one,
/// so that it does not look sequential (a disk positions for it). More would only grow the
/// clone's page table (64 made a 10x cloudphysics clone's table 2.5 GB).
pub const GAP: u64 = 1;
/// Most requests in one run of new requests: a bound on the loop, not a model (a share of
/// sequential new requests of 0.99 gives runs of 100 on average).
const RUN: usize = 4096;

/// The bin of a count `n` ≥ 1 of `bins`: 1, 2, 3-4, 5-8, ..., the last holding every larger one.
#[inline]
fn count_bin(n: u64, bins: usize) -> usize {
    ((64 - n.saturating_sub(1).leading_zeros()) as usize).min(bins - 1)
}

/// The references-so-far bin of a page referenced `j` ≥ 1 times.
#[inline]
pub fn jbin(j: u64) -> usize {
    count_bin(j, JBINS)
}

/// The octave of a gap `g` (0 for none).
#[inline]
pub fn octave(g: u64) -> usize {
    ((64 - g.leading_zeros()) as usize).min(OCTAVES - 1)
}

/// The count bin of a page referenced `f` ≥ 1 times over the trace.
#[inline]
pub fn count_class(f: u64) -> usize {
    count_bin(f, COUNTS)
}

/// The class of a page of count bin `k` and pace `pace`.
#[inline]
pub fn class(k: usize, pace: usize) -> usize {
    k + COUNTS * pace
}

/// Bins of the pages a new request spans (1, 2, 3-4, 5-8, ..., 16,385 and more) in
/// [`Counts::class_sizes`].
pub const SBINS: usize = 16;

/// The bin of a new request that spans `n` pages.
#[inline]
pub fn sbin(n: u64) -> usize {
    count_bin(n, SBINS)
}

/// The index of a state: phase, class, references-so-far bin, octave, op.
#[inline]
pub fn state(phase: usize, c: usize, j: usize, o: usize, op: usize) -> usize {
    (((phase * CLASSES + c) * JBINS + j) * OCTAVES + o) * 2 + op
}

/// A state's (phase, class, references-so-far bin, octave, op).
#[inline]
pub fn dims(s: usize) -> [usize; 5] {
    [s / (2 * OCTAVES * JBINS * CLASSES), (s / (2 * OCTAVES * JBINS)) % CLASSES, (s / (2 * OCTAVES)) % JBINS, (s / 2) % OCTAVES, s % 2]
}

/// The phase of tick `t` of a run of `ticks` (run over and over).
#[inline]
fn phase(t: u64, ticks: f64) -> usize {
    let ticks = ticks.max(1.0);
    ((t as f64 % ticks / ticks * PHASES as f64) as usize).min(PHASES - 1)
}

/// Per class: the mean references of the original's pages of that class (0 for a class with
/// no pages): its page accesses (gaps and ends of its states) over its new pages.
pub fn class_refs(c: &Counts) -> [f64; CLASSES] {
    let mut accesses = [0u64; CLASSES];
    for s in 0..c.ends.len() {
        let k = dims(s)[1];
        accesses[k] += c.ends[s] + c.events.iter().map(|e| e[s].iter().sum::<u64>()).sum::<u64>();
    }
    std::array::from_fn(|k| {
        let pages: u64 = c.new_pages.iter().map(|x| x[0][k] + x[1][k]).sum();
        if pages > 0 {
            accesses[k] as f64 / pages as f64
        } else {
            0.0
        }
    })
}

/// The bin of a gap `g` ≥ 1: exact below 8, then 4 bins per power of two.
#[inline]
pub fn gbin(g: u64) -> usize {
    log_bin(g, 2)
}

/// The gaps a bin holds: (first, how many).
#[inline]
pub fn gbin_range(b: usize) -> (u64, u64) {
    log_bin_range(b, 2)
}

/// What the renewal clone is fitted to (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Counts {
    /// Ticks (page accesses of reads and writes) of the original.
    pub ticks: u64,
    /// Per op of the next reference (read, write), per state, by gap bin: gaps to the page's
    /// next reference.
    pub events: [Vec<Vec<u64>>; 2],
    /// Per state: pages last referenced in that state (their class's references all made).
    pub ends: Vec<u64>,
    /// Per window, op and class: pages first referenced (by a read, by a write).
    pub new_pages: Vec<[[u64; CLASSES]; 2]>,
    /// Per op: `len << 12 | offset within the page` of requests whose first page is new.
    pub sizes: [Values; 2],
    /// Per op: of those requests, how many start where the previous request ended.
    pub sequential: [u64; 2],
    /// Per op and the bin ([`sbin`]) of the pages of the request that last referenced a reuse
    /// request's first page (of its own: not a page it shares): the pages of the requests that
    /// touch no new page (reuses), by count (model format 6; before, per op alone).
    pub reuse: [[Values; SBINS]; 2],
    /// Per op: of those, how many start where the previous request ended.
    pub reuse_sequential: [u64; 2],
    /// Per kind (new requests, reuse requests) and op: the requests that start where the
    /// previous one ended, mid-page and with its op, so that their first page is its last
    /// ([`shares_page`]): that page access is the previous request's reference continued, not
    /// a reference of its own (no tick, no gap, not in the page's references).
    pub shared: [[u64; 2]; 2],
    /// Per op and class: the new requests of that op whose first new page is of that class, by
    /// their pages' bin ([`sbin`]: the pages its size spans, as `sizes` gives it; model format
    /// 4), and their pages in all: how big a new request of a class is.
    pub class_sizes: [[[u64; SBINS]; CLASSES]; 2],
    /// Per op and class: the pages those requests span, in all.
    pub class_pages: [[u64; CLASSES]; 2],
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            ticks: 0,
            events: Default::default(),
            ends: Vec::new(),
            new_pages: Vec::new(),
            sizes: Default::default(),
            sequential: [0; 2],
            reuse: Default::default(),
            reuse_sequential: [0; 2],
            shared: [[0; 2]; 2],
            class_sizes: [[[0; SBINS]; CLASSES]; 2],
            class_pages: [[0; CLASSES]; 2],
        }
    }
}

/// Whether request `r` starts on the last page of the request before it (`last`: its volume,
/// the byte after it and its op) and runs on past it: it starts where that one ended, mid-page,
/// with the same op, and ends on a later page. Unaligned sequential requests (a 4 KiB write
/// after a 4 KiB write, 512 bytes into a page) share a page so; the shared page's second access
/// is request structure, counted apart ([`Counts::shared`]). Not shared, a reference of the page
/// of its own, as before: a request of the other op (a read after a write of the page, as any
/// other), and one that ends on the shared page (the ARC traces' 512-byte reads, eight to a
/// page): it has no page of its own to be issued on, and a clone has no request without one,
/// so counted as structure its access would be lost (arc_OLTP's panel error at 1% of the
/// working set went from 0.010 to 0.062 over 5 seeds when it was, LRU's hits at 1% falling).
#[inline]
pub fn shares_page(last: Option<(u32, u64, Op)>, r: &HostRequest) -> bool {
    r.offset % PAGE != 0 && r.offset % PAGE + u64::from(r.len) > PAGE && last == Some((r.volume, r.offset, r.op))
}

/// Each page's class from its references, the tick of its last and the sum of its gaps' log2
/// (*Pace*): its count bin, and its pace in that bin, the third its mean log gap falls in among
/// the bin's pages of two references or more (thirds cut at the pages a third and two thirds of
/// the way up; a page of one reference, which has no gap, is of pace 0).
fn paces(history: &FxHashMap<u64, (u64, u64, f64)>) -> FxHashMap<u64, u8> {
    let mean = |&(n, _, sum): &(u64, u64, f64)| (n > 1).then(|| sum / (n - 1) as f64);
    let mut means: Vec<Vec<f64>> = vec![Vec::new(); COUNTS];
    for h in history.values() {
        if let Some(m) = mean(h) {
            means[count_class(h.0)].push(m);
        }
    }
    let cuts: Vec<[f64; PACES - 1]> = means
        .iter_mut()
        .map(|v| {
            v.sort_unstable_by(f64::total_cmp);
            std::array::from_fn(|i| v.get(v.len() * (i + 1) / PACES).copied().unwrap_or(f64::INFINITY))
        })
        .collect();
    history
        .iter()
        .map(|(&key, h)| {
            let k = count_class(h.0);
            let pace = mean(h).map_or(0, |m| cuts[k].iter().filter(|&&c| m >= c).count());
            (key, class(k, pace) as u8)
        })
        .collect()
}

impl Counts {
    /// Fits the counts to every read and write of the trace `open` opens (twice: the first pass
    /// counts each page's references), whose page accesses are `ticks` (4 KiB pages, volumes
    /// apart; the phases are quarters of the ticks).
    pub fn fit(open: &mut dyn FnMut() -> Result<Box<dyn TraceReader>>, ticks: u64, mut progress: Option<Progress<'_>>) -> Result<Counts> {
        let splitter = PageSplitter::new(PAGE as u32, KeyUnit::Bytes);
        // Per page: references, tick of the last, the sum of its gaps' log2.
        let mut history: FxHashMap<u64, (u64, u64, f64)> = FxHashMap::default();
        let mut reader = open()?;
        let mut seen = 0u64;
        // The ticks as the second pass counts them.
        let mut t = 0u64;
        // The last read or write: volume, the byte after it, op.
        let mut last: Option<(u32, u64, Op)> = None;
        while let Some(r) = reader.next_request()? {
            seen += 1;
            crate::trace::report(seen, reader.as_ref(), &mut progress)?;
            if r.op != Op::Trim {
                let (first, n) = splitter.pages(&r).map_err(|m| reader.error_at_last(m.to_string()))?;
                let skip = u64::from(shares_page(last, &r));
                last = Some((r.volume, r.offset.saturating_add(u64::from(r.len)), r.op));
                for key in first + skip..first + n {
                    let e = history.entry(key).or_insert((0, 0, 0.0));
                    if e.0 > 0 {
                        e.2 += ((t - e.1) as f64).log2();
                    }
                    e.0 += 1;
                    e.1 = t;
                    t += 1;
                }
            }
        }
        let classes = paces(&history);
        drop(history);
        // The second pass's ticks, known before it starts: each new page is counted in the window
        // of its own tick.
        let span = t.max(1);
        let window = |tick: u64| (((u128::from(tick) * WINDOWS as u128) / u128::from(span)) as usize).min(WINDOWS - 1);
        let mut reader = open()?;
        // Per page: last tick, references so far, state of its last reference, and the bin of
        // the pages of the request that made it.
        let mut pages: FxHashMap<u64, (u64, u64, u32, u8)> = FxHashMap::default();
        let mut c = Counts {
            events: [vec![Vec::new(); STATES], vec![Vec::new(); STATES]],
            ends: vec![0; STATES],
            new_pages: vec![[[0; CLASSES]; 2]; WINDOWS],
            ..Counts::default()
        };
        let mut sizes: [FxHashMap<u64, u64>; 2] = Default::default();
        let mut reuse: [Vec<FxHashMap<u64, u64>>; 2] = [vec![FxHashMap::default(); SBINS], vec![FxHashMap::default(); SBINS]];
        let mut last: Option<(u32, u64, Op)> = None;
        t = 0;
        let add = |v: &mut Vec<u64>, b: usize| {
            if v.len() <= b {
                v.resize(b + 1, 0);
            }
            v[b] += 1;
        };
        let mut seen = 0u64;
        while let Some(r) = reader.next_request()? {
            seen += 1;
            crate::trace::report(seen, reader.as_ref(), &mut progress)?;
            let o = match r.op {
                Op::Read => 0,
                Op::Write => 1,
                Op::Trim => continue,
            };
            let seq = last.is_some_and(|(v, end, _)| (v, end) == (r.volume, r.offset));
            let shared = shares_page(last, &r);
            last = Some((r.volume, r.offset.saturating_add(u64::from(r.len)), r.op));
            let (first, n) = splitter.pages(&r).map_err(|m| reader.error_at_last(m.to_string()))?;
            let mut new = false;
            // The class of the request's first new page.
            let mut new_class = 0;
            // The bin of the request that last referenced its first page of its own (a reuse
            // request's is known: it has no new page).
            let from = pages.get(&(first + u64::from(shared))).map_or(0, |e| usize::from(e.3));
            // A shared first page is the last request's reference continued: not a tick.
            for key in first + u64::from(shared)..first + n {
                let c_ = usize::from(classes.get(&key).copied().unwrap_or(0));
                let e = pages.entry(key).or_insert((u64::MAX, 0, 0, 0));
                let gap = if e.0 == u64::MAX {
                    c.new_pages[window(t)][o][c_] += 1;
                    if !new {
                        new_class = c_;
                    }
                    new = true;
                    0
                } else {
                    let g = t - e.0;
                    add(&mut c.events[o][e.2 as usize], gbin(g));
                    g
                };
                e.1 += 1;
                e.0 = t;
                e.2 = state(phase(t, ticks as f64), c_, jbin(e.1), octave(gap), o) as u32;
                e.3 = sbin(n) as u8;
                t += 1;
            }
            // A request that touches a new page, wherever in it (a file grown by a request that
            // starts on its last known page and runs on into new ones is one): its size, and
            // whether it starts where the previous request ended.
            if new {
                *sizes[o].entry((u64::from(r.len) << 12) | (r.offset % PAGE)).or_default() += 1;
                c.sequential[o] += u64::from(seq);
                c.class_sizes[o][new_class][sbin(n)] += 1;
                c.class_pages[o][new_class] += n;
            } else {
                *reuse[o][from].entry(n).or_default() += 1;
                c.reuse_sequential[o] += u64::from(seq);
            }
            c.shared[usize::from(!new)][o] += u64::from(shared);
        }
        c.ticks = t;
        for &(_, _, s, _) in pages.values() {
            c.ends[s as usize] += 1;
        }
        let sorted = |m: FxHashMap<u64, u64>| {
            let mut v: Values = m.into_iter().collect();
            v.sort_unstable();
            v
        };
        c.sizes = sizes.map(sorted);
        c.reuse = reuse.map(|v| {
            let mut bins: [Values; SBINS] = Default::default();
            for (b, m) in bins.iter_mut().zip(v) {
                *b = sorted(m);
            }
            bins
        });
        Ok(c)
    }

    /// The counts as the `renewal` lines of a model file.
    pub fn write(&self, s: &mut String) {
        let join = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(" ");
        let _ = writeln!(s, "renewal ticks {}", self.ticks);
        for (w, x) in self.new_pages.iter().enumerate() {
            let list = |v: &[u64; CLASSES]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            let _ = writeln!(s, "renewal new-pages {w} {} {}", list(&x[0]), list(&x[1]));
        }
        let _ = writeln!(s, "renewal sequential {} {}", self.sequential[0], self.sequential[1]);
        for (o, name) in ["read", "write"].iter().enumerate() {
            let _ = writeln!(
                s,
                "renewal sizes {name} {}",
                join(&mut self.sizes[o].iter().map(|&(x, c)| format!("{}+{}:{c}", x >> 12, x & 0xfff)))
            );
        }
        if self.reuse.iter().flatten().any(|v| !v.is_empty()) {
            let _ = writeln!(s, "renewal reuse-sequential {} {}", self.reuse_sequential[0], self.reuse_sequential[1]);
        }
        let [[a, b], [x, y]] = self.shared;
        let _ = writeln!(s, "renewal shared {a} {b} {x} {y}");
        for (o, name) in ["read", "write"].iter().enumerate() {
            for (k, v) in self.class_sizes[o].iter().enumerate().filter(|(_, v)| v.iter().any(|&x| x > 0)) {
                let pages = self.class_pages[o][k];
                let _ = writeln!(s, "renewal class-sizes {name} {k} {pages} {}", join(&mut v.iter().map(u64::to_string)));
            }
        }
        for (o, name) in ["read", "write"].iter().enumerate() {
            for (b, v) in self.reuse[o].iter().enumerate().filter(|(_, v)| !v.is_empty()) {
                let _ = writeln!(s, "renewal reuse {name} {b} {}", join(&mut v.iter().map(|&(x, c)| format!("{x}:{c}"))));
            }
        }
        for i in 0..STATES {
            let (r, w, c) = (&self.events[0][i], &self.events[1][i], self.ends[i]);
            if r.iter().chain(w).all(|&x| x == 0) && c == 0 {
                continue;
            }
            let bins = |v: &Vec<u64>| join(&mut v.iter().enumerate().filter(|(_, &x)| x > 0).map(|(b, x)| format!("{b}:{x}")));
            let _ = writeln!(s, "renewal state {i} {} | {} | {c}", bins(r), bins(w));
        }
    }

    /// Parses one `renewal` line's words after `renewal`; the error says what was expected.
    pub fn parse_line(&mut self, words: &[&str]) -> std::result::Result<(), String> {
        let count = |w: &str, what: &str| w.parse::<u64>().map_err(|_| format!("renewal {what}: expected a count, found '{}'", clip(w)));
        if self.ends.is_empty() {
            self.events = [vec![Vec::new(); STATES], vec![Vec::new(); STATES]];
            self.ends = vec![0; STATES];
            self.new_pages = vec![[[0; CLASSES]; 2]; WINDOWS];
        }
        let (key, rest) = words.split_first().ok_or(
            "renewal: expected a key (ticks, new-pages, sequential, sizes, reuse, reuse-sequential, shared, class-sizes or state)",
        )?;
        match *key {
            "ticks" => {
                let [v] = rest else { return Err("renewal ticks: expected one count".into()) };
                self.ticks = count(v, "ticks")?;
            }
            "new-pages" => {
                let bad =
                    || format!("renewal new-pages: expected a window below {WINDOWS} and two lists of {CLASSES} counts (reads, writes)");
                let [w, r, wr] = rest else { return Err(bad()) };
                let w = count(w, "new-pages")? as usize;
                if w >= WINDOWS {
                    return Err(bad());
                }
                for (o, list) in [r, wr].into_iter().enumerate() {
                    let v: Vec<u64> = list.split(',').map(|x| count(x, "new-pages")).collect::<std::result::Result<_, _>>()?;
                    self.new_pages[w][o] = v.try_into().map_err(|_| bad())?;
                }
            }
            "sequential" => {
                let [r, w] = rest else { return Err("renewal sequential: expected two counts".into()) };
                self.sequential = [count(r, "sequential")?, count(w, "sequential")?];
            }
            "sizes" => {
                let o = match rest.first() {
                    Some(&"read") => 0,
                    Some(&"write") => 1,
                    _ => return Err("renewal sizes: expected read or write".into()),
                };
                let mut v = Values::new();
                for w in &rest[1..] {
                    let bad = || format!("renewal sizes: expected LEN+OFFSET:COUNT, found '{}'", clip(w));
                    let (size, c) = w.split_once(':').ok_or_else(bad)?;
                    let (len, off) = size.split_once('+').ok_or_else(bad)?;
                    let (len, off, c) = (count(len, "sizes")?, count(off, "sizes")?, count(c, "sizes")?);
                    if off >= PAGE || len >= 1 << 40 {
                        return Err(bad());
                    }
                    v.push(((len << 12) | off, c));
                }
                self.sizes[o] = v;
            }
            "shared" => {
                let [a, b, x, y] = rest else {
                    return Err("renewal shared: expected four counts (new reads, new writes, reuse reads, reuse writes)".into());
                };
                self.shared = [[count(a, "shared")?, count(b, "shared")?], [count(x, "shared")?, count(y, "shared")?]];
            }
            "class-sizes" => {
                let bad = || format!("renewal class-sizes: expected read or write, a class below {CLASSES}, its pages and {SBINS} counts");
                let (o, k, pages, v) = match rest {
                    [o, k, pages, v @ ..] if v.len() == SBINS => (*o, *k, *pages, v),
                    _ => return Err(bad()),
                };
                let o = match o {
                    "read" => 0,
                    "write" => 1,
                    _ => return Err(bad()),
                };
                let k = count(k, "class-sizes")? as usize;
                if k >= CLASSES {
                    return Err(bad());
                }
                for (x, w) in self.class_sizes[o][k].iter_mut().zip(v) {
                    *x = count(w, "class-sizes")?;
                }
                self.class_pages[o][k] = count(pages, "class-sizes")?;
            }
            "reuse-sequential" => {
                let [r, w] = rest else { return Err("renewal reuse-sequential: expected two counts".into()) };
                self.reuse_sequential = [count(r, "reuse-sequential")?, count(w, "reuse-sequential")?];
            }
            "reuse" => {
                let bad = || format!("renewal reuse: expected read or write, then the bin (below {SBINS}) of the pages of the request before");
                let o = match rest.first() {
                    Some(&"read") => 0,
                    Some(&"write") => 1,
                    _ => return Err(bad()),
                };
                let b = rest.get(1).and_then(|w| w.parse::<usize>().ok()).filter(|&b| b < SBINS).ok_or_else(bad)?;
                let mut v = Values::new();
                for w in &rest[2..] {
                    let bad = || format!("renewal reuse: expected PAGES:COUNT (pages at least 1), found '{}'", clip(w));
                    let (n, c) = w.split_once(':').ok_or_else(bad)?;
                    let (n, c) = (count(n, "reuse")?, count(c, "reuse")?);
                    if n == 0 || n >= 1 << 40 {
                        return Err(bad());
                    }
                    v.push((n, c));
                }
                self.reuse[o][b] = v;
            }
            "state" => {
                let i = rest.first().map(|w| count(w, "state")).transpose()?.filter(|&i| (i as usize) < STATES);
                let i = i.ok_or_else(|| format!("renewal state: expected a state below {STATES}"))? as usize;
                let bars: Vec<usize> = rest.iter().enumerate().filter(|(_, w)| **w == "|").map(|(k, _)| k).collect();
                let [bar, bar2] = bars[..] else { return Err("renewal state: expected READ-GAPS | WRITE-GAPS | ENDS".into()) };
                let bins = |ws: &[&str]| -> std::result::Result<Vec<u64>, String> {
                    let mut v = Vec::new();
                    for w in ws {
                        let (b, c) = w.split_once(':').ok_or_else(|| format!("renewal state: expected BIN:COUNT, found '{}'", clip(w)))?;
                        let b = count(b, "state")? as usize;
                        if b == 0 || b > gbin(u64::MAX) {
                            return Err(format!("renewal state: bin {b} is not a gap bin (1..={})", gbin(u64::MAX)));
                        }
                        if v.len() <= b {
                            v.resize(b + 1, 0);
                        }
                        v[b] = count(c, "state")?;
                    }
                    Ok(v)
                };
                self.events[0][i] = bins(&rest[1..bar])?;
                self.events[1][i] = bins(&rest[bar + 1..bar2])?;
                let [ends] = rest[bar2 + 1..] else { return Err("renewal state: expected one count of ends after the second |".into()) };
                self.ends[i] = count(ends, "state")?;
            }
            k => {
                return Err(format!(
                    "renewal: unknown key '{k}'; expected ticks, new-pages, sequential, sizes, reuse, reuse-sequential, shared, class-sizes or state"
                ))
            }
        }
        Ok(())
    }

    /// What a complete set of counts must hold; the error says what is missing.
    pub fn check(&self) -> std::result::Result<(), String> {
        if self.ticks == 0 || self.new_pages.len() != WINDOWS || self.ends.len() != STATES {
            return Err("renewal: expected ticks, new-pages and state lines".into());
        }
        if self.sizes.iter().all(|s| s.iter().all(|x| x.1 == 0)) {
            return Err("renewal: no sizes of new requests".into());
        }
        // As fitted: every tick is a gap or a page's end, and every page that ends was new once.
        // An edited count breaks the rates the generator draws from (a tick count far above its
        // gaps made it search for ever).
        let sum = |v: &[u64]| v.iter().map(|&x| u128::from(x)).sum::<u128>();
        let ends = sum(&self.ends);
        let gaps = self.events.iter().flatten().map(|v| sum(v)).sum::<u128>() + ends;
        if u128::from(self.ticks) != gaps {
            return Err(format!("renewal ticks {}: expected the state lines' gaps and ends, {gaps}", self.ticks));
        }
        if (0..2).any(|o| self.shared[0][o] > self.sequential[o] || self.shared[1][o] > self.reuse_sequential[o]) {
            return Err("renewal shared: more requests that share their first page than requests that start where the last ended".into());
        }
        for o in 0..2 {
            let by_class = self.class_sizes[o].iter().map(|v| sum(v)).sum::<u128>();
            let sized = self.sizes[o].iter().map(|x| u128::from(x.1)).sum::<u128>();
            if by_class != sized {
                return Err(format!("renewal class-sizes: {by_class} new requests of an op in all; expected its sizes' count, {sized}"));
            }
            // Every request spans a page at least (the draw divides by a class's pages).
            for (k, v) in self.class_sizes[o].iter().enumerate() {
                let (requests, pages) = (sum(v), self.class_pages[o][k]);
                if u128::from(pages) < requests {
                    return Err(format!(
                        "renewal class-sizes: class {k}'s {requests} new requests span {pages} pages; expected a page a request at least"
                    ));
                }
            }
        }
        let new = self.new_pages.iter().flatten().map(|v| sum(v)).sum::<u128>();
        if new != ends {
            return Err(format!("renewal new-pages: {new} pages in all; expected the state lines' ends, {ends}"));
        }
        Ok(())
    }
}

/// How a clone's new request is drawn with its class (`class_sizes` of the model): the class
/// first, from the window's new pages of each class over the mean pages of that class's requests
/// (so that each class still gets its pages), then the request's size bin from that class's
/// requests, then its size from the op's sizes in that bin (without replacement, as `sizes`).
/// A class with fewer than [`MIN_SEEN`] new requests takes those of the count bins around it
/// too, of its pace (k - 1 to k + 1, then k - 2 to k + 2, ...: the most referenced classes each
/// hold a few requests, alike in size), then of every pace, as the states pool.
#[derive(Debug, Clone)]
struct ClassSizes {
    /// Per op and class: 1 / the mean pages of its new requests.
    per_page: [[f64; CLASSES]; 2],
    /// Per op and class: P(size bin | class), cumulative.
    bins: [[[f64; SBINS]; CLASSES]; 2],
    /// Per op and size bin: the op's sizes in that bin (`None`: none).
    sizes: [Vec<Option<Bag>>; 2],
}

impl ClassSizes {
    /// `None` for a model without class sizes; `sizes` are the op's (after their fallback).
    fn new(counts: &[[[u64; SBINS]; CLASSES]; 2], pages: &[[u64; CLASSES]; 2], sizes: [&Values; 2]) -> Option<ClassSizes> {
        if counts.iter().flatten().flatten().all(|&x| x == 0) {
            return None;
        }
        let mut c = ClassSizes { per_page: [[0.0; CLASSES]; 2], bins: [[[0.0; SBINS]; CLASSES]; 2], sizes: [Vec::new(), Vec::new()] };
        for o in 0..2 {
            // An op without new requests takes the other's.
            let op = if counts[o].iter().flatten().any(|&x| x > 0) { o } else { 1 - o };
            let requests = |k: usize| counts[op][k].iter().sum::<u64>();
            for c_ in 0..CLASSES {
                let (k, pace) = (c_ % COUNTS, c_ / COUNTS);
                // The classes of count bins k - j to k + j, of its pace (`all` false) or of every
                // pace.
                let around = |j: usize, all: bool| {
                    let bins = k.saturating_sub(j)..(k + j + 1).min(COUNTS);
                    let paces = if all { 0..PACES } else { pace..pace + 1 };
                    paces.flat_map(move |p| bins.clone().map(move |x| class(x, p)))
                };
                let (j, all) = (0..COUNTS)
                    .map(|j| (j, false))
                    .chain((0..COUNTS).map(|j| (j, true)))
                    .find(|&(j, all)| around(j, all).map(requests).sum::<u64>() >= MIN_SEEN)
                    .unwrap_or((COUNTS - 1, true));
                let n = around(j, all).map(requests).sum::<u64>() as f64;
                c.per_page[o][c_] = n / around(j, all).map(|x| pages[op][x]).sum::<u64>() as f64;
                let mut cum = 0.0;
                for (b, at) in c.bins[o][c_].iter_mut().enumerate() {
                    cum += around(j, all).map(|x| counts[op][x][b]).sum::<u64>() as f64 / n;
                    *at = cum;
                }
            }
            c.sizes[o] = (0..SBINS)
                .map(|b| {
                    let v: Values =
                        sizes[o].iter().copied().filter(|&(x, _)| sbin(((x & 0xfff) + (x >> 12).max(1)).div_ceil(PAGE)) == b).collect();
                    (v.iter().any(|x| x.1 > 0)).then(|| Bag::new(&v))
                })
                .collect();
        }
        Some(c)
    }
}

/// What the ablations turn off (`ablate=frequency+recency+together+ops+requests+extents+sizes+pace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ablate {
    pub frequency: bool,
    pub recency: bool,
    pub together: bool,
    pub ops: bool,
    /// Issue each block of pages due in a row as one request (not cut into the original's reuse
    /// request lengths).
    pub requests: bool,
    /// Cut a block by its op's reuse request lengths alone (not by those of the bin of the
    /// request that last referenced each piece's first page).
    pub extents: bool,
    /// Draw a new request's class regardless of its size (not from the classes' own sizes).
    pub sizes: bool,
    /// Pool the states over the paces of a count bin (the pages' paces still drawn, with their
    /// sizes).
    pub pace: bool,
    /// Pool the quarters (`phases=1`; the default, `phases=4`, keeps them apart).
    pub pool_phases: bool,
}

impl Ablate {
    /// Parses `a+b+...` of frequency, recency, together, ops, requests, extents, sizes and pace.
    pub fn parse(v: &str) -> std::result::Result<Ablate, String> {
        let mut a = Ablate::default();
        for part in v.split('+') {
            match part {
                "frequency" => a.frequency = true,
                "recency" => a.recency = true,
                "together" => a.together = true,
                "ops" => a.ops = true,
                "requests" => a.requests = true,
                "extents" => a.extents = true,
                "sizes" => a.sizes = true,
                "pace" => a.pace = true,
                _ => {
                    let what = if part.is_empty() { "an empty part".to_string() } else { format!("unknown part '{part}'") };
                    return Err(format!(
                        "{what}; expected frequency, recency, together, ops, requests, extents, sizes or pace (joined with +)"
                    ));
                }
            }
        }
        Ok(a)
    }
}

/// A state's gap distribution: cumulative probabilities by gap bin; what is left above the last
/// is the probability of no further reference.
#[derive(Debug, Clone)]
struct Gaps {
    cum: Vec<f64>,
    /// Per gap bin: P(the reference after that gap is a write).
    write: Vec<f64>,
    /// Per [`GUIDE`]th of [0, 1): the first bin whose cumulative probability passes its start
    /// (the search for a uniform starts there, a step or two from its bin).
    guide: Vec<u16>,
}

/// Slots of a [`Gaps`]' guide table.
const GUIDE: usize = 64;

impl Gaps {
    /// The distribution of the gaps to a read and to a write, and of the ends (no further
    /// reference), by bin; the op after a gap is a write with its bin's share of writes (`share`
    /// instead, when given: ops ablated).
    fn new(reads: &[u64], writes: &[u64], ends: u64, share: Option<f64>) -> Gaps {
        let n = reads.len().max(writes.len());
        let at = |v: &[u64], b: usize| v.get(b).copied().unwrap_or(0) as f64;
        let all: f64 = (0..n).map(|b| at(reads, b) + at(writes, b)).sum::<f64>() + ends as f64;
        let write = (0..n).map(|b| share.unwrap_or(at(writes, b) / (at(reads, b) + at(writes, b)).max(1.0))).collect();
        let mut total = 0.0;
        let cum: Vec<f64> = (0..n)
            .map(|b| {
                total += (at(reads, b) + at(writes, b)) / all.max(1.0);
                total
            })
            .collect();
        let guide = (0..GUIDE).map(|k| cum.partition_point(|&c| c <= k as f64 / GUIDE as f64) as u16).collect();
        Gaps { cum, write, guide }
    }

    /// The mean gap (each bin at its middle), at least 1 (1 without gaps): a divisor.
    fn mean(&self) -> f64 {
        let (mut sum, mut before) = (0.0, 0.0);
        for (b, &c) in self.cum.iter().enumerate() {
            let (lo, n) = gbin_range(b);
            sum += (c - before) * (lo as f64 + (n as f64 - 1.0) / 2.0);
            before = c;
        }
        if before > 0.0 {
            (sum / before).max(1.0)
        } else {
            1.0
        }
    }

    /// The gap and op of the next reference for uniforms `u` (which bin), `v` (where in it) and
    /// `x` (which op), or `None` (no further reference).
    #[inline]
    fn draw(&self, u: f64, v: f64, x: f64) -> Option<(u64, u8)> {
        // The bin partition_point would find: the first with cum > u, from the guide's.
        let mut b = usize::from(self.guide[((u * GUIDE as f64) as usize).min(GUIDE - 1)]);
        while b < self.cum.len() && self.cum[b] <= u {
            b += 1;
        }
        (b < self.cum.len()).then(|| {
            let (lo, n) = gbin_range(b);
            (lo + ((v * n as f64) as u64).min(n - 1), u8::from(x < self.write[b]))
        })
    }
}

/// Every [`Gaps`] of a clone in one array, for the draws of a clone that is not a profile's
/// (whose hold reshapes its `Gaps` and draws from them): a draw read a `Gaps`, then its guide,
/// cumulative and write arrays, four lines in four places mostly out of cache (a tenth of a 10x
/// clone of arc_OLTP); here a distribution is one record of 64-byte lines in a row: its bin
/// count and guide, then each bin's cumulative probability and write share side by side. The
/// same numbers (their bits), so the same draws.
#[derive(Debug, Default)]
struct Flat {
    /// Per distribution (by its number in `gaps`): where its record starts.
    at: Vec<u32>,
    /// Records: bins, the guide (4 entries a word), then (cumulative, write share) per bin.
    words: Vec<u64>,
}

/// Words of a [`Flat`] record before its bins: the bin count, and the guide.
const HEAD: usize = 1 + GUIDE / 4;

impl Flat {
    fn new(gaps: &[Gaps]) -> Flat {
        let mut f = Flat::default();
        for g in gaps {
            // Each record on a line of its own.
            f.words.resize(f.words.len().next_multiple_of(8), 0);
            f.at.push(f.words.len() as u32);
            f.words.push(g.cum.len() as u64);
            f.words.extend(g.guide.chunks(4).map(|c| c.iter().rev().fold(0u64, |w, &x| (w << 16) | u64::from(x))));
            for (c, w) in g.cum.iter().zip(&g.write) {
                f.words.extend([c.to_bits(), w.to_bits()]);
            }
        }
        f
    }

    /// [`Gaps::draw`] of distribution `i`.
    #[inline]
    fn draw(&self, i: u32, u: f64, v: f64, x: f64) -> Option<(u64, u8)> {
        let r = &self.words[self.at[i as usize] as usize..];
        let n = r[0] as usize;
        let k = ((u * GUIDE as f64) as usize).min(GUIDE - 1);
        let mut b = (r[1 + k / 4] >> (16 * (k % 4)) & 0xffff) as usize;
        let cum = |b: usize| f64::from_bits(r[HEAD + 2 * b]);
        while b < n && cum(b) <= u {
            b += 1;
        }
        (b < n).then(|| {
            let (lo, m) = gbin_range(b);
            (lo + ((v * m as f64) as u64).min(m - 1), u8::from(x < f64::from_bits(r[HEAD + 2 * b + 1])))
        })
    }
}

/// A pooled state's gaps to a read and to a write (by bin), and its ends.
type Pooled = ([Vec<u64>; 2], u64);

/// A page's next reference: its gap (scaled) and op, or `None` (it ends).
type Drawn = Option<(u64, u8)>;

/// The random numbers a request's pages share: which gap bin, where in it, which next op.
type Draws = (f64, f64, f64);

/// No reference due.
const NEVER: u64 = u64::MAX;
/// A [`Page`]'s offset mark: its new request started on the page before ([`shares_page`]).
const BEFORE: u16 = 1 << 15;
/// Ticks with pages due whose pages' entries are read ahead at once ([`Renewal::read_ahead`]).
const AHEAD: usize = 16;

/// Joins page `p`, due at `due`, to the calendar entry being formed (`run`: due, first page,
/// pages) when it is the next page of it due at the same tick; else puts that entry in the
/// calendar and starts one at `p`.
#[inline]
fn join(run: &mut Option<(u64, u64, u32)>, calendar: &mut Calendar, due: u64, p: u64) {
    match run {
        Some((d, start, k)) if *d == due && *start + u64::from(*k) == p => *k += 1,
        _ => {
            if let Some((d, start, k)) = run.replace((due, p, 1)) {
                calendar.push(d, start as u32, k);
            }
        }
    }
}

/// `x.ceil() as u64`, without the call to the C library's `ceil` that x86-64's baseline compiles
/// it to (no rounding instruction before SSE4.1): 2% of a 10x clone, at each page's scaled gap.
/// The same value for every `x`: `x as u64` truncates (0 below 1, saturating above), and an `x`
/// of 2^52 or more is whole already.
#[inline]
fn ceil_u64(x: f64) -> u64 {
    let i = x as u64;
    if (i as f64) < x {
        i.saturating_add(1)
    } else {
        i
    }
}

/// Chunks of the page table ([`super::table::CHUNK`] entries of 32 bytes, 128 KiB) held from which
/// the entries are read ahead ([`Renewal::read_ahead`]): a smaller table stays in the caches, and
/// the reads only cost (mqsim_wsrch's 10x clone 0.89x with them, arc_P2's 1.16x, cloudphysics'
/// 1.00x).
const AHEAD_CHUNKS: usize = 64;

/// A page number's entry.
#[derive(Debug, Clone, Copy)]
struct Page {
    /// Tick of its last reference.
    last: u64,
    /// Tick of its next reference, `NEVER` when none is due (the calendar may still hold a
    /// stale entry for it: an entry counts only while it matches).
    due: u64,
    /// References so far, saturating (a state's bin of them ends at 65, a class's count at
    /// 4,097: the same states and ends as an exact count).
    refs: u16,
    /// The bin ([`sbin`]) of the pages of the request that made its last reference (its
    /// reuse requests' lengths are drawn from that bin's, `cut`).
    from: u8,
    /// The op of its next reference (when due).
    op: u8,
    /// Its class: its references over the original's run, binned ([`class`]).
    class: u8,
    /// The pages, bytes and offset in its page of the new request that first touched it (on that
    /// request's first new page only; 0 pages elsewhere); the offset is marked [`BEFORE`] when
    /// the request started on the page before (the last page of the request before it).
    span: u32,
    len: u32,
    offset: u16,
}

impl Default for Page {
    fn default() -> Page {
        Page { last: 0, due: NEVER, refs: 0, from: 0, op: 0, class: 0, span: 0, len: 0, offset: 0 }
    }
}

/// Streams a renewal clone of [`Counts`].
#[derive(Debug)]
pub struct Renewal {
    label: String,
    /// The malformed lines its model's fit skipped (reported as the clone's own).
    skipped: u64,
    rng: StdRng,
    seed: u64,
    /// `length=N`: N requests; without it, the ticks of the original × K (`span`).
    length: Option<u64>,
    i: u64,
    scale: f64,
    ablate: Ablate,
    gaps: Vec<Gaps>,
    /// `gaps` in one array, for the draws of a clone (not a profile's).
    flat: Flat,
    /// Per window and op: new pages per tick.
    new_rate: Vec<[f64; 2]>,
    /// The original's new pages by op (which op a clone that outruns its windows goes on with).
    new_pages_total: [u64; 2],
    /// Per window and op: the classes of the new pages, counts (a new request's class is drawn
    /// from them).
    classes: Vec<[[u64; CLASSES]; 2]>,
    /// How a new request's class and size are drawn together ([`ClassSizes`]); `None` when the
    /// model has none, for a profile, or with `ablate=sizes`.
    class_sizes: Option<Box<ClassSizes>>,
    /// Per op: the class drawn with the next new request (`next_new`), when drawn with it.
    next_class: [Option<u8>; 2],
    /// Per state: its distribution in `gaps` (states pooled alike share one).
    which: Vec<u32>,
    sizes: [Bag; 2],
    sequential: [f64; 2],
    /// Per op and bin of the pages of the request that last referenced a piece's first page:
    /// the pages of the original's reuse requests, which tile a block ([`Tiling`]; a bin of
    /// fewer than [`MIN_SEEN`] requests takes the op's, every bin's; empty for a model without
    /// them, or with `requests` ablated: a reuse request is then as long as its pages due in a
    /// row).
    reuse: [Vec<Tiling>; 2],
    /// Per op: the mean pages of the original's reuse requests, and the clone's reuse requests
    /// and their pages so far ([`Renewal::reuse_off`]).
    reuse_mean: [f64; 2],
    reused: [[u64; 2]; 2],
    /// Per op: the share of the original's reuse requests that start where the previous one
    /// ended.
    reuse_sequential: [f64; 2],
    /// Per op: the share of the original's sequential new requests that start on the last page
    /// of the request before them ([`shares_page`]).
    shared: [f64; 2],
    /// Per op: the share of the original's sequential reuse requests that start on the last
    /// page of the request before them.
    reuse_shared: [f64; 2],
    /// Per op: new requests that followed on so far, and of them those that could share the
    /// last one's page (it ended mid-page, and they run past it): see `new_run`.
    share_counts: [[u64; 2]; 2],
    /// The pieces of the block being cut, before they are queued in their order.
    pieces: Vec<(u64, u32)>,
    /// Per op: reuse requests and blocks cut so far (a block's first request never follows
    /// on, so a link within a block is kept more often than the original's share; see `cut`).
    cut_counts: [[u64; 2]; 2],
    /// Ticks of the clone's windows (all of them).
    span: f64,
    max_pages: u64,
    t: u64,
    credit: [f64; 2],
    /// The next new request: op, `len << 12 | offset`, pages.
    next_new: [Option<(u64, u64)>; 2],
    calendar: Calendar,
    pages: Table<Page>,
    fresh: u64,
    /// The run of the original's ticks × K the clock is in (`length=` past the first), and the
    /// first page number of that run: the pages of earlier runs have ended.
    run: u64,
    run_first: u64,
    /// Ticks worked out once for the ticks they hold (divisions, at every tick): the run of
    /// [`Renewal::step`] (`[start, end)` and the run), and the window ([`Renewal::window`]:
    /// `[start, end)` and the window).
    runs_at: (u64, u64, u64),
    window_at: (u64, u64, usize),
    /// The quarter ([`Renewal::quarter`]): `[start, end)` and the quarter.
    quarter_at: (u64, u64, usize),
    /// The calendar's entries due at the current tick, and their pages that are due.
    due_runs: Vec<Run>,
    /// The last tick whose pages' entries were read ahead ([`Renewal::read_ahead`]).
    ahead: u64,
    due: Vec<u32>,
    /// Requests of the current tick: first page, pages, op, random numbers.
    out: VecDeque<(u64, u32, usize, Draws)>,
    /// The random numbers of the current run of new requests.
    run_rn: Draws,
    /// The byte after the last new request's.
    last_new_end: u64,
    /// The byte after the last request out, when the next shares its last page.
    tail: Option<u64>,
    arrivals: Option<super::arrivals::Stream>,
    last_ns: u64,
    /// A paper profile's hold ([`Renewal::with_shape`]), `None` for a clone.
    hold: Option<Box<Hold>>,
    /// A new request is forced at this tick (nothing due, no budget): past a profile's cap.
    forced: bool,
    /// A paper profile's per-op locality p/a, held by which pages go on
    /// ([`Renewal::with_locality`]).
    locality: Option<Box<Locality>>,
}

/// What a paper profile sets on a renewal clone ([`super::profile`] says how each lever is
/// found and what it costs): the table's counts and the factors that reshape the donor to them.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// The table's requests (the clone's length) and unique pages.
    pub requests: u64,
    pub pages: u64,
    /// Expected page accesses (ticks) per request: the pace of the new pages per tick.
    pub ticks_per_request: f64,
    /// The table's share of write requests, and the factor on the odds of a write (of each
    /// window's new pages and of the op drawn with each gap); a share of 0 or 1 makes every
    /// op that one.
    pub write: f64,
    pub write_odds: f64,
    /// A new page of class c is drawn with weight (its window's count) × m_c^tilt, m_c the
    /// mean references of the donor's pages of class c.
    pub tilt: f64,
    /// The probability that a page that would end goes on instead (more references per page
    /// than the donor's classes give).
    pub more: f64,
    /// No page ends while the pages alive are fewer than this share of the new pages out so
    /// far, and a continued reference's gap is the pages alive × its drawn gap over the mean
    /// of the pooled gaps (at least the drawn gap, scaled); 0: neither. Found by pilots
    /// ([`super::profile`], *Pages alive at once*).
    pub alive: f64,
    /// Each op's mean request size (bytes; read, write), held by feedback; `None` when every
    /// request is one page.
    pub mean_size: Option<[f64; 2]>,
    /// Multiplies every arrival time (the profile's mean rate).
    pub time_factor: f64,
    /// Feedback on (turning ops, the better of two sizes, the new pages' pace); off for the
    /// pilots that find the factors.
    pub feedback: bool,
}

/// The most a profile's page that would end goes on with: it ends after 10,000 such draws on
/// average.
const MORE: f64 = 0.9999;

/// Draws of a size of which a profile takes the smaller or larger while its mean size is more
/// than 1% off, as the stack profile does (four made lcr-ts_0's mean swing to 10% under).
const DRAWS: usize = 2;

/// A profile's state on a renewal clone.
#[derive(Debug, Clone)]
struct Hold {
    shape: Shape,
    /// Per window: the share of the new pages issued by its start (65 entries).
    cum: Vec<f64>,
    /// Per window and op: new pages per tick before the pace's correction.
    rate: Vec<[f64; 2]>,
    /// Per class: the weight of the tilt.
    weight: [f64; CLASSES],
    /// Per op of the access: every state's gaps pooled (no ends), for a page that goes on from
    /// a state that saw none.
    fallback: [Gaps; 2],
    /// Per op: the mean of `fallback`'s gaps (the original's ticks).
    mean_gap: [f64; 2],
    /// New pages issued, write requests and each op's bytes out so far.
    new_pages: u64,
    writes: u64,
    bytes: [u64; 2],
}

impl Hold {
    /// The pace's correction at request `i`: 2^(the new pages behind the shape / (0.25% of the
    /// table's pages + 4)), within 1/256 and 256 (1 with the feedback off).
    fn pace(&self, i: u64) -> f64 {
        if !self.shape.feedback {
            return 1.0;
        }
        let deficit = self.want(i) - self.new_pages as f64;
        (deficit / (0.0025 * self.shape.pages as f64 + 4.0)).clamp(-8.0, 8.0).exp2()
    }

    /// The probability that a page that would end goes on, at request `i` with `alive` pages
    /// alive: the shape's, its complement × the pace (pages behind the shape end more), and
    /// [`MORE`] while the new pages are at or ahead of the shape (no page ends while no new
    /// page may replace it) or while fewer pages are alive than the shape holds.
    fn more(&self, i: u64, alive: u64) -> f64 {
        if self.shape.feedback && self.new_pages as f64 >= self.want(i) || (alive as f64) < self.shape.alive * self.new_pages as f64 {
            return MORE;
        }
        (1.0 - (1.0 - self.shape.more) * self.pace(i)).clamp(0.0, MORE)
    }

    /// The share of the table's pages out so far.
    #[inline]
    fn done(&self) -> f64 {
        (self.new_pages as f64 / self.shape.pages.max(1) as f64).min(1.0)
    }

    /// The new pages the pace wants by request `i`: the donor's shape over the table's count.
    fn want(&self, i: u64) -> f64 {
        let x = (i as f64 / self.shape.requests as f64 * WINDOWS as f64).min(WINDOWS as f64);
        let w = (x as usize).min(WINDOWS - 1);
        self.shape.pages as f64 * (self.cum[w] + (self.cum[w + 1] - self.cum[w]) * (x - w as f64))
    }
}

impl Renewal {
    /// A renewal clone of `m` (its `renewal` counts) at `scale`, `length` requests.
    pub fn new(m: &super::Model, scale: f64, length: Option<u64>, seed: u64, ablate: Ablate, label: String) -> Result<Renewal> {
        let c = m.renewal.as_ref().ok_or_else(|| {
            Error::config(format!(
                "{label}: the model of {} (model format {}) has no renewal counts of format {FORMAT}: fit it again with 'fcsim trace clone TRACE -o MODEL', or clone its stack counts with model=stack",
                m.source,
                m.format
            ))
        })?;
        // A state's key at a level of pooling: the dimensions the level (or an ablation) drops
        // are set to 0, and the counts of every state with the same key are added up. A state
        // seen fewer than MIN_SEEN times takes the first level, in LEVELS' order, that is.
        // (`dims` of the state taken once: a state tries up to six levels.)
        let keep_dims = |[ph, c, j, oc, op]: [usize; 5], drop: [bool; 4]| {
            let off = |d: bool, v: usize| if d { 0 } else { v };
            let frequency = ablate.frequency;
            state(
                off(drop[0] || ablate.pool_phases, ph),
                off(drop[1] || frequency, if ablate.pace { c % COUNTS } else { c }),
                off(drop[2] || frequency, j),
                off(drop[3] || ablate.recency, oc),
                op,
            )
        };
        let keep = |s: usize, drop: [bool; 4]| keep_dims(dims(s), drop);
        // (phase, class, references so far, octave) dropped.
        const LEVELS: [[bool; 4]; 6] = [
            [false; 4],
            [true, false, false, false],
            [false, false, false, true],
            [true, false, false, true],
            [true, false, true, true],
            [true, true, true, true],
        ];
        let share = |x: [u64; 2]| x[1] as f64 / (x[0] + x[1]).max(1) as f64;
        let totals = c.new_pages.iter().fold([0, 0], |a, x| [a[0] + x[0].iter().sum::<u64>(), a[1] + x[1].iter().sum::<u64>()]);
        let overall = share(totals);
        // Each state's distribution is that of the first level that saw it MIN_SEEN times;
        // states that share one share its Gaps (numbered in the order of the first state to
        // take each). Dense arrays by state index, not maps: a clone of a short trace is built
        // again and again (clone_speed's repeats), and hashing every state at every level was
        // a quarter of a 10x clone of the 1,000-request msr excerpt.
        let used: Vec<usize> = (0..STATES).filter(|&s| c.ends[s] > 0 || c.events.iter().any(|e| !e[s].is_empty())).collect();
        // Per level and pooled state: observations (gaps and ends), saturating (only compared
        // with MIN_SEEN, which is below u16::MAX).
        let mut seen = vec![0u16; LEVELS.len() * STATES];
        for &s in &used {
            let n = c.events.iter().map(|e| e[s].iter().sum::<u64>()).sum::<u64>() + c.ends[s];
            let n = u16::try_from(n).unwrap_or(u16::MAX);
            let d = dims(s);
            for (l, &drop) in LEVELS.iter().enumerate() {
                let x = &mut seen[l * STATES + keep_dims(d, drop)];
                *x = x.saturating_add(n);
            }
        }
        // Per level and pooled state: its distribution's number, once a state takes it (fewer
        // than STATES, so below NONE; 32 bits: STATES is above 2^16).
        const NONE: u32 = u32::MAX;
        let mut slot = vec![NONE; LEVELS.len() * STATES];
        let mut keys: Vec<usize> = Vec::new();
        let mut which = Vec::with_capacity(STATES);
        for s in 0..STATES {
            let d = dims(s);
            let at = |l: usize| l * STATES + keep_dims(d, LEVELS[l]);
            let k = (0..LEVELS.len()).map(at).find(|&k| seen[k] >= MIN_SEEN as u16).unwrap_or_else(|| at(LEVELS.len() - 1));
            if slot[k] == NONE {
                slot[k] = keys.len() as u32;
                keys.push(k);
            }
            which.push(slot[k]);
        }
        // The counts of each distribution taken: its level's states added up.
        let mut pooled: Vec<Pooled> = vec![Default::default(); keys.len()];
        for (l, &drop) in LEVELS.iter().enumerate() {
            for &s in &used {
                let i = slot[l * STATES + keep(s, drop)];
                if i == NONE {
                    continue;
                }
                let d = &mut pooled[i as usize];
                for (dst, src) in d.0.iter_mut().zip([&c.events[0][s], &c.events[1][s]]) {
                    if dst.len() < src.len() {
                        dst.resize(src.len(), 0);
                    }
                    for (x, y) in dst.iter_mut().zip(src) {
                        *x += y;
                    }
                }
                d.1 += c.ends[s];
            }
        }
        let gaps: Vec<Gaps> = pooled.iter().map(|g| Gaps::new(&g.0[0], &g.0[1], g.1, ablate.ops.then_some(overall))).collect();
        let span = c.ticks as f64 * scale;
        // New pages per tick and op (with `ops` ablated, both ops' pages split by the trace's
        // share of writes): a window's new pages × K over its K times longer run.
        let per_tick = |n: u64| n as f64 / (c.ticks as f64 / WINDOWS as f64);
        let new_rate = c
            .new_pages
            .iter()
            .map(|x| {
                let [r, w] = x.map(|v| v.iter().sum::<u64>());
                if ablate.ops {
                    [per_tick(r + w) * (1.0 - overall), per_tick(r + w) * overall]
                } else {
                    [per_tick(r), per_tick(w)]
                }
            })
            .collect::<Vec<_>>();
        let starts = |o: usize| c.sizes[o].iter().map(|x| x.1).sum::<u64>();
        let sequential = [0, 1].map(|o| if starts(o) > 0 { c.sequential[o] as f64 / starts(o) as f64 } else { 0.0 });
        let sizes = [0, 1].map(|o| Bag::new(if starts(o) > 0 { &c.sizes[o] } else { &c.sizes[1 - o] }));
        let count = |v: &Values| v.iter().map(|x| x.1).sum::<u64>();
        let reuses = |o: usize| c.reuse[o].iter().map(count).sum::<u64>();
        // Per op (an op without reuse requests takes the other op's): every bin's lengths, each
        // bin's own where it holds MIN_SEEN requests or more (not with `extents` ablated), and
        // their mean.
        let [(read, read_mean), (write, write_mean)] = [0, 1].map(|o| {
            let bins = if reuses(o) == 0 { &c.reuse[1 - o] } else { &c.reuse[o] };
            let all: Values = bins.iter().flatten().copied().collect();
            let mean = all.iter().map(|&(m, k)| m as f64 * k as f64).sum::<f64>() / (count(&all) as f64).max(1.0);
            let Some(pooled) = Tiling::new(&all).filter(|_| !ablate.requests) else { return (Vec::new(), mean) };
            let own = |v: &Values| Tiling::new(v).filter(|_| count(v) >= MIN_SEEN && !ablate.extents);
            (bins.iter().map(|v| own(v).unwrap_or_else(|| pooled.clone())).collect(), mean)
        });
        let (reuse, reuse_mean) = ([read, write], [read_mean, write_mean]);
        let shared = [0, 1].map(|o| if c.sequential[o] > 0 { c.shared[0][o] as f64 / c.sequential[o] as f64 } else { 0.0 });
        let reuse_sequential = [0, 1].map(|o| if reuses(o) > 0 { c.reuse_sequential[o] as f64 / reuses(o) as f64 } else { 0.0 });
        let reuse_shared =
            [0, 1].map(|o| if c.reuse_sequential[o] > 0 { c.shared[1][o] as f64 / c.reuse_sequential[o] as f64 } else { 0.0 });
        let max_pages = c
            .sizes
            .iter()
            .flatten()
            .chain(m.sizes.iter().flatten())
            .chain(m.follow.iter().flatten())
            .map(|&(x, _)| ((x & 0xfff) + (x >> 12).max(1)).div_ceil(PAGE))
            .max()
            .unwrap_or(1);
        // Page numbers: the new pages × K and at most one unused number before each new request
        // (of one page or more); refused before the table grows towards 2^32 entries.
        let pages = (totals[0] + totals[1]) as f64;
        let numbers = 2.0 * scale * pages + max_pages as f64;
        if numbers >= f64::from(u32::MAX) {
            return Err(Error::config(format!(
                "{label}: scale={scale}: a working set of {:.0} pages needs up to {numbers:.0} page numbers (its pages and a free number before each new request), more than a clone has (2^32 pages of 4 KiB); the largest scale of this model is {}",
                scale * pages,
                ((f64::from(u32::MAX) - max_pages as f64) / (2.0 * pages) * 1000.0).floor() / 1000.0
            )));
        }
        // The clone's new pages come at the original's rate × K: under one page in all, it is empty.
        if scale * pages < 1.0 {
            return Err(Error::config(format!(
                "{label}: scale={scale}: a working set of {} pages, less than one page (the original's {pages:.0} pages × {scale}): the smallest scale of this model is {}",
                scale * pages,
                (1.0 / pages * 1e6).ceil() / 1e6
            )));
        }
        let arrivals =
            m.arrivals.clone().map(|a| super::arrivals::Stream::new(super::arrivals::Arrivals::new(a, seed), length.unwrap_or(u64::MAX)));
        Ok(Renewal {
            label,
            skipped: m.skipped,
            rng: StdRng::seed_from_u64(seed),
            seed,
            length,
            i: 0,
            scale,
            ablate,
            flat: Flat::new(&gaps),
            gaps,
            new_rate,
            new_pages_total: totals,
            classes: c.new_pages.clone(),
            class_sizes: (!ablate.sizes)
                .then(|| {
                    ClassSizes::new(
                        &c.class_sizes,
                        &c.class_pages,
                        [0, 1].map(|o| if starts(o) > 0 { &c.sizes[o] } else { &c.sizes[1 - o] }),
                    )
                })
                .flatten()
                .map(Box::new),
            next_class: [None; 2],
            which,
            sizes,
            sequential,
            reuse,
            reuse_mean,
            reused: [[0; 2]; 2],
            reuse_sequential,
            shared,
            reuse_shared,
            share_counts: [[0; 2]; 2],
            pieces: Vec::new(),
            cut_counts: [[0; 2]; 2],
            span,
            max_pages,
            t: 0,
            credit: [0.0; 2],
            next_new: [None; 2],
            calendar: Calendar::default(),
            pages: Table::default(),
            fresh: 0,
            run: 0,
            run_first: 0,
            runs_at: (0, 0, 0),
            window_at: (0, 0, 0),
            quarter_at: (0, 0, 0),
            due_runs: Vec::new(),
            ahead: 0,
            due: Vec::new(),
            out: VecDeque::new(),
            run_rn: (0.5, 0.5, 0.5),
            last_new_end: 0,
            tail: None,
            arrivals,
            last_ns: 0,
            hold: None,
            forced: false,
            locality: None,
        })
    }

    /// Holds the clone to a paper profile's [`Shape`] (see [`super::profile`]): windows and
    /// quarters follow the requests out (of the table's count) rather than the ticks, a single
    /// run (no further runs on new pages), each window's new pages of each op reweighted by the
    /// write odds and paced so that the new pages so far follow the donor's shape over the
    /// table's count (the rate × e^(deficit / 1% of the pages), within 1/16 and 16, with
    /// feedback), the classes tilted, every gap's op reweighted by the write odds.
    pub fn with_shape(mut self, m: &super::Model, shape: Shape) -> Renewal {
        // A profile draws its classes with its tilt and its sizes with its mean's feedback.
        self.class_sizes = None;
        let c = m.renewal.as_ref().expect("new() checked the renewal counts");
        let odds = |p: f64| match shape.write {
            w if w <= 0.0 => 0.0,
            w if w >= 1.0 => 1.0,
            _ => shape.write_odds * p / (shape.write_odds * p + 1.0 - p).max(1e-300),
        };
        let mut fallback: [Gaps; 2] = [0, 1].map(|op| {
            let mut v = [Vec::new(), Vec::new()];
            for s in (0..c.ends.len()).filter(|s| s % 2 == op) {
                for (dst, src) in v.iter_mut().zip([&c.events[0][s], &c.events[1][s]]) {
                    if dst.len() < src.len() {
                        dst.resize(src.len(), 0);
                    }
                    for (a, b) in dst.iter_mut().zip(src) {
                        *a += b;
                    }
                }
            }
            Gaps::new(&v[0], &v[1], 0, None)
        });
        for g in self.gaps.iter_mut().chain(fallback.iter_mut()) {
            for p in &mut g.write {
                *p = odds(*p);
            }
        }
        let per: Vec<[f64; 2]> = c
            .new_pages
            .iter()
            .map(|x| {
                let [r, w] = x.map(|v| v.iter().sum::<u64>() as f64);
                let share = if r + w > 0.0 { odds(w / (r + w)) } else { 0.0 };
                [(r + w) * (1.0 - share), (r + w) * share]
            })
            .collect();
        let total: f64 = per.iter().map(|x| x[0] + x[1]).sum::<f64>().max(1.0);
        let mut cum = vec![0.0; WINDOWS + 1];
        for w in 0..WINDOWS {
            cum[w + 1] = cum[w] + (per[w][0] + per[w][1]) / total;
        }
        let ticks_per_window = (shape.requests as f64 * shape.ticks_per_request / WINDOWS as f64).max(1.0);
        let rate = per.iter().map(|x| x.map(|n| n / total * shape.pages as f64 / ticks_per_window)).collect();
        let refs = class_refs(c);
        let weight = std::array::from_fn(|k| if refs[k] > 0.0 { refs[k].powf(shape.tilt) } else { 0.0 });
        if shape.write <= 0.0 || shape.write >= 1.0 {
            // Every new page one op: each window's classes of both ops.
            for x in &mut self.classes {
                let both: [u64; CLASSES] = std::array::from_fn(|k| x[0][k] + x[1][k]);
                *x = [both; 2];
            }
        }
        self.span = f64::INFINITY;
        self.length = Some(shape.requests);
        self.arrivals =
            m.arrivals.clone().map(|a| super::arrivals::Stream::new(super::arrivals::Arrivals::new(a, self.seed), shape.requests));
        let mean_gap = [0, 1].map(|o| fallback[o].mean());
        self.hold = Some(Box::new(Hold { shape, cum, rate, weight, fallback, mean_gap, new_pages: 0, writes: 0, bytes: [0; 2] }));
        self
    }

    /// Holds each op's locality p/a (read, then write) to a paper table's ([`Locality`]: hot
    /// sets; a page hot for an op behind its goal goes on, a cold page's next reference of an
    /// op behind its goal is not made). For a profile ([`Renewal::with_shape`]) only.
    pub fn with_locality(mut self, target: [(f64, f64); 2]) -> Renewal {
        // Room for the page numbers: the table's pages and at most one unused number before each
        // new request (the vectors grow past it if need be).
        let cap = self.hold.as_ref().map_or(1 << 16, |h| 2 * h.shape.pages + 1024);
        let l = Locality::new(target, cap);
        // Each op's page accesses over the run: the table's requests × page accesses per
        // request, split by the share of writes.
        let l = match &self.hold {
            Some(h) => {
                let all = h.shape.requests as f64 * h.shape.ticks_per_request;
                l.with_accesses([all * (1.0 - h.shape.write), all * h.shape.write])
            }
            None => l,
        };
        self.locality = Some(Box::new(l));
        self
    }

    /// New pages per tick of each op in window `w`: the clone's, or a profile's paced.
    #[inline]
    fn rate(&self, w: usize) -> [f64; 2] {
        let Some(h) = &self.hold else { return self.new_rate[w] };
        let g = h.pace(self.i);
        h.rate[w].map(|r| r * g)
    }

    /// Bytes held by the page table and the calendar: the generator's state that grows with the
    /// working set (not with the length).
    pub fn state_bytes(&self) -> usize {
        self.pages.bytes()
            + self.calendar.bytes()
            + 4 * self.due.capacity()
            + 8 * self.due_runs.capacity()
            + self.locality.as_ref().map_or(0, |l| l.bytes())
    }

    /// The window tick `t` is in, and the first tick of the next: the original's windows over
    /// each run of the clone's span.
    #[inline]
    fn window(&self, t: u64) -> (usize, u64) {
        if let Some(h) = &self.hold {
            return (((self.i * WINDOWS as u64) / h.shape.requests).min(WINDOWS as u64 - 1) as usize, u64::MAX);
        }
        let (start, end, w) = self.window_at;
        if start <= t && t < end {
            return (w, end);
        }
        let (k, end) = self.window_of(t);
        (k % WINDOWS, end.max(t + 1))
    }

    /// The window tick `t` is in, counted over every run, and the first tick of the next.
    #[inline]
    fn window_of(&self, t: u64) -> (usize, u64) {
        let per = self.span / WINDOWS as f64;
        let k = (t as f64 / per) as usize;
        (k, ceil_u64((k + 1) as f64 * per))
    }

    /// Keeps the window of tick `t` for the ticks up to its end, when every tick before that
    /// end is in it (the division is monotone, so its last tick's window says so; a tick whose
    /// quotient rounds past the end's leaves the window to be worked out tick by tick).
    fn keep_window(&mut self, t: u64) {
        let (start, end, _) = self.window_at;
        if self.hold.is_some() || (start <= t && t < end) {
            return;
        }
        let (k, end) = self.window_of(t);
        if end > t && self.window_of(end - 1).0 == k {
            self.window_at = (t, end, k % WINDOWS);
        }
    }

    /// The quarter of the current tick ([`phase`] over the clone's span), kept for the ticks up
    /// to the next quarter's first when every tick before it is in it: within a run the
    /// remainder grows with the tick, and so does its quarter, so a last tick less than a run on
    /// whose remainder is no smaller (the same run) and whose quarter is the same says so.
    fn quarter(&mut self) -> usize {
        let t = self.t;
        let (start, end, q) = self.quarter_at;
        if start <= t && t < end {
            return q;
        }
        let ticks = self.span.max(1.0);
        let q = phase(t, self.span);
        let r = t as f64 % ticks;
        let end = t.saturating_add(ceil_u64((q + 1) as f64 * ticks / PHASES as f64 - r).max(1));
        let last = end - 1;
        if ((last - t) as f64) < ticks && last as f64 % ticks >= r && phase(last, self.span) == q {
            self.quarter_at = (t, end, q);
        }
        q
    }

    /// A profile's budget of new pages is at most what its shape still wants by the requests
    /// out and queued: the pace's correction cannot pile up new pages.
    fn cap_credit(&mut self) {
        if let Some(left) = self.left().filter(|_| !self.forced) {
            for c in &mut self.credit {
                *c = c.min(left);
            }
        }
    }

    /// The new pages a profile's shape still wants by the requests out and queued (`None` for
    /// a clone, or with the feedback off).
    fn left(&self) -> Option<f64> {
        let h = self.hold.as_ref().filter(|h| h.shape.feedback)?;
        Some((h.want(self.i + self.out.len() as u64) - h.new_pages as f64).max(0.0))
    }

    /// The op a profile turns the next reference to (1 write): the one behind while the share
    /// of writes so far is more than 0.2 points off its table's, once 64 requests are out.
    fn turn(&self) -> Option<u8> {
        let h = self.hold.as_ref().filter(|h| h.shape.feedback && self.i >= 64)?;
        let off = h.writes as f64 / self.i as f64 - h.shape.write;
        (off.abs() > 0.002).then_some(u8::from(off < 0.0))
    }

    /// How far a profile's mean size is off, for a draw of op `o` (a fraction, + above), when
    /// more than 1% and the feedback is on: the mean over both ops off the table's first (so
    /// that the table's mean holds where one op cannot reach its own), else op `o`'s off its
    /// own target (so that the ops keep the donor's ratio), once 64 requests are out (64 of
    /// the op's).
    fn size_off(&self, o: usize) -> Option<f64> {
        let h = self.hold.as_ref().filter(|h| h.shape.feedback && self.i >= 64)?;
        let t = h.shape.mean_size?;
        let n = [self.i - h.writes, h.writes];
        let want = n[0] as f64 * t[0] + n[1] as f64 * t[1];
        let all = (h.bytes[0] + h.bytes[1]) as f64 / want.max(1.0) - 1.0;
        if all.abs() > 0.01 {
            return Some(all);
        }
        let own = h.bytes[o] as f64 / (n[o] as f64 * t[o]).max(1.0) - 1.0;
        (n[o] >= 64 && own.abs() > 0.01).then_some(own)
    }

    /// How far a clone's reuse requests of op `o` are off the original's mean pages so far
    /// (pages over requests × the mean, less 1), when more than 1% after 64 requests, as
    /// [`Renewal::size_off`] holds a profile's mean size: a block's pieces then take the larger
    /// (or smaller) of two lengths drawn (see `cut`). `None` for a profile, whose sizes
    /// `size_off` holds.
    fn reuse_off(&self, o: usize) -> Option<f64> {
        let [n, pages] = self.reused[o];
        let off = pages as f64 / (n as f64 * self.reuse_mean[o]).max(1.0) - 1.0;
        (self.hold.is_none() && n >= 64 && off.abs() > 0.01).then_some(off)
    }

    /// Op `o`'s next new request, `len << 12 | offset` and pages, drawn once and kept until it
    /// is issued.
    #[inline]
    fn next_new(&mut self, o: usize) -> Result<(u64, u64)> {
        match self.next_new[o] {
            Some(n) => Ok(n),
            None => self.draw_new(o),
        }
    }

    /// Draws op `o`'s next new request ([`Renewal::next_new`]).
    fn draw_new(&mut self, o: usize) -> Result<(u64, u64)> {
        let w = self.class_sizes.is_some().then(|| self.window(self.t).0);
        if let (Some(w), Some(cs)) = (w, &mut self.class_sizes) {
            // Its class from the window's new pages of each class per page of the class's
            // requests, its size bin from the class's requests, its size from the op's in that
            // bin ([`ClassSizes`]).
            let counts = &self.classes[w][o];
            let total: f64 = counts.iter().zip(&cs.per_page[o]).map(|(&c, k)| c as f64 * k).sum();
            if total > 0.0 {
                let mut x = self.rng.gen::<f64>() * total;
                let k = counts
                    .iter()
                    .zip(&cs.per_page[o])
                    .position(|(&c, k)| {
                        x < c as f64 * k || {
                            x -= c as f64 * k;
                            false
                        }
                    })
                    // Past every weight by rounding alone: the last class that has any.
                    .or_else(|| counts.iter().rposition(|&c| c > 0))
                    .unwrap_or(0);
                let u = self.rng.gen::<f64>() * cs.bins[o][k][SBINS - 1];
                let b = cs.bins[o][k].partition_point(|&c| c <= u).min(SBINS - 1);
                if let Some(bag) = &mut cs.sizes[o][b] {
                    let packed = bag.draw(&mut self.rng)?;
                    let pages = ((packed & 0xfff) + (packed >> 12).max(1)).div_ceil(PAGE);
                    (self.next_new[o], self.next_class[o]) = (Some((packed, pages)), Some(k as u8));
                    return Ok((packed, pages));
                }
            }
        }
        let mut packed = self.sizes[o].draw(&mut self.rng)?;
        if let Some(off) = self.size_off(o) {
            for _ in 1..DRAWS {
                let b = self.sizes[o].draw(&mut self.rng)?;
                if (off > 0.0) != (packed >> 12 < b >> 12) {
                    packed = b;
                }
            }
        }
        let pages = ((packed & 0xfff) + (packed >> 12).max(1)).div_ceil(PAGE);
        self.next_new[o] = Some((packed, pages));
        Ok((packed, pages))
    }

    /// References pages `first..first + n` with op `o` at the current tick with the random
    /// numbers `rn` (shared by the request's pages): each takes its next state and is put in
    /// the calendar at its next reference, if any. Pages in a row due at the same tick are one
    /// calendar entry, and a page in the same distribution as the page before it takes that
    /// page's draw (the same random numbers give the same gap and op): a request's pages mostly
    /// share their state, so they cost one draw and one entry, not one each.
    fn touch(&mut self, first: u64, n: u64, o: usize, rn: Draws) {
        // A profile's quarters follow its requests; its ops are turned to the one behind while
        // the share of writes so far is more than 0.2 points off (the request's pages alike).
        let quarter = if self.hold.is_none() { self.quarter() } else { 0 };
        let (ph, turn) = match &self.hold {
            Some(h) => (((self.i * PHASES as u64) / h.shape.requests).min(PHASES as u64 - 1) as usize, self.turn()),
            None => (quarter, None),
        };
        // The calendar entry being formed (due, first page, pages), and the last shared draw
        // (its distribution, and the gap and op drawn, the gap scaled).
        let mut run: Option<(u64, u64, u32)> = None;
        let mut last: Option<(u32, Option<(u64, u8)>)> = None;
        // A clone's pages end at their class's count (not a profile's, whose pages go on past
        // the donor's classes, nor with the classes ablated).
        let cap = self.hold.is_none() && !self.ablate.frequency;
        // A clone's page (not a profile's, nor under the locality lever, nor with `together`
        // ablated) whose references so far, last reference and class are those of the page
        // before it had that page's state, so its draw (shared) and its end at its class's count
        // are that page's too: it takes them without working them out again (most of a block's
        // pages came in together). The page before's refs, last and class before its reference,
        // and its outcome (the scaled gap and op, or its end).
        let same = self.hold.is_none() && self.locality.is_none() && !self.ablate.together;
        let from = sbin(n) as u8;
        let mut before: Option<(u16, u64, u8, Drawn)> = None;
        let t = self.t;
        for p in first..first + n {
            let e = self.pages.at(p);
            // A first page already referenced at this tick is the last page of the request
            // before, which this one follows on from mid-page (`new_run`): the same reference
            // continued, so it draws nothing and keeps its state and its calendar entry.
            if p == first && e.refs > 0 && e.last == t {
                continue;
            }
            if let Some((.., drawn)) = before.filter(|b| (b.0, b.1, b.2) == (e.refs, e.last, e.class)) {
                debug_assert!(same);
                e.refs = e.refs.saturating_add(1);
                e.last = t;
                e.from = from;
                match drawn {
                    None => {
                        e.due = NEVER;
                        self.pages.end(p);
                    }
                    Some((g, next)) => {
                        (e.op, e.due) = (next, t + g);
                        join(&mut run, &mut self.calendar, t + g, p);
                    }
                }
                continue;
            }
            let (refs, at, class) = (e.refs, e.last, e.class);
            let shared = !(self.ablate.together && p > first);
            let (u, v, x) = if shared { rn } else { (self.rng.gen(), self.rng.gen(), self.rng.gen()) };
            if let Some(l) = &mut self.locality {
                l.touch(o, p);
            }
            let alive = self.pages.alive();
            let e = self.pages.at(p);
            // The state takes the gap in the original's time: a gap the scale stretched is
            // shrunk back, so that a scaled page goes through the original's states.
            let gap = match if e.refs == 0 { 0 } else { t - e.last } {
                g if g > UNSCALED && self.scale != 1.0 => ((g as f64 / self.scale) as u64).max(UNSCALED + 1),
                g => g,
            };
            e.refs = e.refs.saturating_add(1);
            e.last = t;
            e.from = from;
            e.due = NEVER;
            let s = state(ph, usize::from(e.class), jbin(u64::from(e.refs)), octave(gap), o);
            let which = self.which[s];
            // The locality lever decides page by page (its hot sets), so a page under it draws
            // its own; otherwise a page in the same distribution as the one before takes its draw.
            let share_draw = shared && self.locality.is_none();
            let drawn = if let Some((_, drawn)) = last.filter(|&(w, _)| share_draw && w == which) {
                drawn
            } else {
                let gaps = &self.gaps[which as usize];
                let continued = std::cell::Cell::new(false);
                let natural = if self.hold.is_none() { self.flat.draw(which, u, v, x) } else { gaps.draw(u, v, x) };
                // The op drawn, turned by the write share's turn (the same for the request's pages).
                let turned = |d: Option<(u64, u8)>| d.map(|(g, n)| (g, turn.unwrap_or(n)));
                let drawn = match self.hold.as_deref() {
                    None => turned(natural),
                    Some(h) => {
                        // A profile's page that would end goes on with probability `more`: its gap
                        // drawn from its state's gaps (the op's pooled when the state has none), with
                        // what is left of `u` (so a block's pages go on together).
                        let last = gaps.cum.last().copied().unwrap_or(0.0);
                        let z = (u - last) / (1.0 - last).max(1e-12);
                        let go_on = |y: f64| {
                            let d = if last > 0.0 {
                                gaps.draw(y * last, v, x)
                            } else {
                                h.fallback[o].draw(y * h.fallback[o].cum.last().copied().unwrap_or(0.0), v, x)
                            };
                            continued.set(d.is_some());
                            d
                        };
                        let more = h.more(self.i, alive);
                        let with_more = || natural.or_else(|| (z < more).then(|| go_on(z / more)).flatten());
                        match &self.locality {
                            None => turned(with_more()),
                            Some(l) => {
                                // The per-op locality's lever (see [`Locality`]), on the op of the
                                // reference the page would make next (after the write share's turn):
                                // behind its goal, a page hot for it goes on and a cold one ends;
                                // ahead, a page hot for the other op, which is behind, goes on with
                                // the other op; a page cold for it (or new to it) goes on.
                                let on = turned(natural.or_else(|| go_on(z)));
                                match on.map(|(_, n)| usize::from(n)) {
                                    Some(n) if l.behind(n) && l.is_hot(n, p) => on,
                                    Some(n) if l.behind(n) && l.is_cold(n, p) => None,
                                    Some(n) if !l.behind(n) && !l.is_hot(n, p) && l.is_hot(1 - n, p) && l.behind(1 - n) => {
                                        on.map(|(g, _)| (g, (1 - n) as u8))
                                    }
                                    Some(n) if !l.behind(n) && !l.is_hot(n, p) => on,
                                    // A page new to the op drawn, which has no room for one more
                                    // page (its p/a out of reach): the other op's reference.
                                    _ => turned(with_more()).map(|(g, m)| {
                                        let m = usize::from(m);
                                        (g, if !l.is_seen(m, p) && !l.room(m, h.done()) { 1 - m } else { m } as u8)
                                    }),
                                }
                            }
                        }
                    }
                };
                let drawn = drawn.map(|(g, next)| {
                    let scaled = if g > UNSCALED && self.scale != 1.0 { ceil_u64((g as f64) * self.scale) } else { g };
                    // A profile that holds pages alive takes a continued gap in units of the
                    // pages alive (the drawn gap over the pooled gaps' mean, in the original's
                    // ticks), at least the gap scaled: the pages alive come back about once in
                    // as many references as there are of them, whatever their number and the
                    // scale (see `Shape::alive`).
                    let g = match self.hold.as_deref() {
                        Some(h) if continued.get() && h.shape.alive > 0.0 => scaled.max(ceil_u64(g as f64 * alive as f64 / h.mean_gap[o])),
                        _ => scaled,
                    };
                    (g.max(1), next)
                });
                if share_draw {
                    last = Some((which, drawn));
                }
                drawn
            };
            // A page of a class below the last that has made as many references as its class
            // holds ends: the original has no page past its class's count, so the state it would
            // take next was never seen, and its pooled gaps would keep it going (the msr excerpt's
            // 33-64 class, two pages of 33 and 34 references, pooled with every class past 64
            // references: a 9-page request of it came back 77 times, a third of a clone).
            let k = usize::from(e.class) % COUNTS;
            let drawn = drawn.filter(|_| !cap || k + 1 == COUNTS || u64::from(e.refs) < 1 << k);
            if same {
                before = Some((refs, at, class, drawn));
            }
            let Some((g, next)) = drawn else {
                self.pages.end(p);
                continue;
            };
            e.op = next;
            e.due = t + g;
            join(&mut run, &mut self.calendar, t + g, p);
        }
        if let Some((d, start, k)) = run {
            self.calendar.push(d, start as u32, k);
        }
    }

    /// Whether page `p` is due within `ahead` ticks with op `o` (to join a request before it).
    #[inline]
    fn due_soon(&self, p: u64, ahead: u64, o: usize) -> bool {
        self.pages.get(p).is_some_and(|e| e.due != NEVER && e.due <= self.t + ahead && e.op as usize == o)
    }

    /// Issues a run of new requests of op `o` in window `w` on pages never used before: its
    /// first request after [`GAP`] unused page number, then, with the original's share of new
    /// requests that start where the previous request ended, one more right after it, at once
    /// (as the original's sequential requests follow one another): on the last page of the one
    /// before, at the byte after it, with the original's share of sequential new requests that
    /// share their first page so ([`shares_page`]; the shared page is not paid for and draws
    /// nothing), else on the next page. Each is paid from the op's budget of new pages (which
    /// may go below zero: the next run waits until it is paid back).
    /// The run's requests share their random numbers, so that the run comes back together (a
    /// file written in pieces is read back).
    fn new_run(&mut self, o: usize, w: usize) -> Result<()> {
        self.fresh += GAP;
        self.run_rn = (self.rng.gen(), self.rng.gen(), self.rng.gen());
        for k in 0..RUN {
            let (packed, drawn) = self.next_new(o)?;
            self.credit[o] -= drawn as f64;
            self.next_new[o] = None;
            let drawn_class = self.next_class[o].take();
            // A profile turns a new request's op too (paid from the budget of the op drawn).
            let op = self.turn().map_or(o, usize::from);
            // A profile's op with no room for new pages (its locality out of reach) gives them
            // to the other op.
            let op = match (&self.locality, &self.hold) {
                (Some(l), Some(h)) if !l.room(op, h.done()) => 1 - op,
                _ => op,
            };
            // A turned request of a profile that holds each op's mean size takes its size from
            // its new op's.
            let sized = self.hold.as_ref().is_some_and(|h| h.shape.mean_size.is_some());
            let packed = if op != o && sized && !self.sizes[op].is_empty() { self.sizes[op].draw(&mut self.rng)? } else { packed };
            // A request that follows on starts where the last one ended: on its last page, at the
            // byte after it, with the original's share of sequential new requests that do
            // ([`shares_page`]; that page's access continues the last one's reference, so it
            // draws nothing and is not paid for), else on the page after it, at its first byte
            // when the last one ended on a page boundary, at the drawn offset when not.
            let len = packed >> 12;
            let end = self.last_new_end % PAGE;
            if k > 0 && self.shared[o] > 0.0 {
                self.share_counts[o][0] += 1;
            }
            let share = k > 0 && self.shared[o] > 0.0 && end > 0 && end + len > PAGE && self.share_now(o);
            let offset = if share {
                end
            } else if k > 0 && end == 0 {
                0
            } else {
                packed & 0xfff
            };
            let n = (offset + len.max(1)).div_ceil(PAGE);
            let first = self.fresh - u64::from(share);
            if share {
                self.credit[o] += drawn as f64 - (n - 1) as f64;
            }
            self.last_new_end = first * PAGE + offset + len;
            self.fresh = first + n;
            if self.fresh > u64::from(u32::MAX) - 1 {
                return Err(Error::config(format!(
                    "{}: the clone's page numbers pass 2^32 (scale or length too large for one clone)",
                    self.label
                )));
            }
            // Its new pages: all of it, or all but the shared page.
            let new = first + u64::from(share);
            self.pages.give(new, first + n - new);
            // The request's class, drawn from the window's new pages of its op (a profile's
            // weighted by its tilt).
            let counts = &self.classes[w][o];
            let class = match &mut self.hold {
                Some(h) => {
                    h.new_pages += first + n - new;
                    let total: f64 = counts.iter().zip(&h.weight).map(|(&c, &k)| c as f64 * k).sum();
                    let mut x = self.rng.gen::<f64>() * total;
                    counts.iter().zip(&h.weight).position(|(&c, &k)| {
                        x < c as f64 * k || {
                            x -= c as f64 * k;
                            false
                        }
                    })
                }
                // A clone's drawn with its size (`next_new`), or else from its window's new pages.
                None => drawn_class.map(usize::from).or_else(|| {
                    let mut x = self.rng.gen_range(0..counts.iter().sum::<u64>().max(1));
                    counts.iter().position(|&c| {
                        x < c || {
                            x -= c;
                            false
                        }
                    })
                }),
            };
            let class = class.unwrap_or(0) as u8;
            // Its pages, bytes and offset, on its first new page (marked [`BEFORE`] when that is
            // not its first page: the shared page keeps the record of the request before).
            let e = self.pages.at(new);
            (e.span, e.len, e.offset) = (n as u32, len as u32, offset as u16 | if share { BEFORE } else { 0 });
            for p in new..first + n {
                let e = self.pages.at(p);
                (e.op, e.class) = (op as u8, class);
            }
            self.out.push_back((first, n as u32, op, self.run_rn));
            if self.rng.gen::<f64>() >= self.sequential[o] {
                break;
            }
            // A profile's run stops where its shape's new pages are spent.
            if let Some(h) = self.hold.as_ref().filter(|h| h.shape.feedback) {
                if h.new_pages as f64 >= h.want(self.i + self.out.len() as u64) {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Whether a new request of op `o` that follows on, and could share the last one's page,
    /// does: the original's share s of sequential new requests that share, over the share of the
    /// clone's that could (a clone's request can share only when the one before it ended
    /// mid-page, as the original's could), the counts so far: s × follow-ons / those that could.
    fn share_now(&mut self, o: usize) -> bool {
        let c = &mut self.share_counts[o];
        c[1] += 1;
        let p = (self.shared[o] * c[0] as f64 / c[1] as f64).min(1.0);
        self.rng.gen::<f64>() < p
    }

    /// Queues the block of `n` pages from `first`, due now with op `o`, as requests of the
    /// lengths of the original's reuse requests (drawn) with the random numbers `rn`: each
    /// follows on from the one before it with the original's share of reuse requests that
    /// start where the previous request ended; the runs so formed are queued last run first
    /// (their requests in page order), so that a run's first request does not follow on from
    /// the last of the run queued before it.
    fn cut(&mut self, first: u64, n: u64, o: usize, rn: Draws) -> Result<()> {
        let off = self.size_off(o).or_else(|| self.reuse_off(o));
        if self.reuse[o].is_empty() {
            self.out.push_back((first, n as u32, o, rn));
            return Ok(());
        }
        self.pieces.clear();
        let (mut p, end) = (first, first + n);
        // A piece after the first starts on the last page of the one before (follows on from it
        // mid-page, as the original's sequential reuse requests that share a page do) with the
        // link's probability (below, by the counts before this block) × the original's share q
        // of its links that share: its first page is that one's reference continued (`touch`).
        let s = self.reuse_sequential[o];
        let a = match (self.reuse_shared[o], self.cut_counts[o]) {
            (0.0, _) => 0.0,
            (q, [r, b]) if r > b => (s * r as f64 / (r - b) as f64).min(1.0) * q,
            (q, _) => s * q,
        };
        // Each piece's length is drawn from the lengths of the bin of the request that last
        // referenced its first page, tiling what is left of the block from its start ([`Tiling`]:
        // one page more for a piece that shares; one drawn a single page does not share; a
        // profile's cut short at the block's end, [`Tiling::cut_short`]).
        let profile = self.hold.is_some();
        while p < end {
            let share = a > 0.0 && !self.pieces.is_empty() && self.rng.gen::<f64>() < a;
            let left = end - p + u64::from(share);
            let from = self.pages.get(p).map_or(0, |e| usize::from(e.from));
            let tiling = &mut self.reuse[o][from];
            let mut draw = |u: f64| if profile { tiling.cut_short(left, u) } else { tiling.draw(left, u) };
            let mut m = draw(self.rng.gen());
            if let Some(off) = off {
                for _ in 1..DRAWS {
                    let b = draw(self.rng.gen());
                    if (off > 0.0) != (m < b) {
                        m = b;
                    }
                }
            }
            let start = p - u64::from(share && m >= 2);
            self.pieces.push((start, m as u32));
            self.reused[o][0] += 1;
            self.reused[o][1] += m;
            p = start + m;
        }
        // A block's first request does not follow on: so that the share of reuse requests that
        // do is the original's s, a link within a block is kept with s × requests / (requests
        // - blocks), the counts so far (a piece that shares a page is a link: the others are
        // kept with what is left of it).
        let c = &mut self.cut_counts[o];
        c[0] += self.pieces.len() as u64;
        c[1] += 1;
        let keep = (s * c[0] as f64 / (c[0] - c[1]).max(1) as f64).min(1.0);
        let link = if a > 0.0 && a < 1.0 { ((keep - a) / (1.0 - a)).max(0.0) } else { keep };
        // Runs: split before a piece whose link to the one before it is not kept.
        let mut stop = self.pieces.len();
        for i in (0..self.pieces.len()).rev() {
            let shared = i > 0 && self.pieces[i].0 < self.pieces[i - 1].0 + u64::from(self.pieces[i - 1].1);
            if i == 0 || (!shared && self.rng.gen::<f64>() >= link) {
                for &(p, m) in &self.pieces[i..stop] {
                    self.out.push_back((p, m, o, rn));
                }
                stop = i;
            }
        }
        Ok(())
    }

    /// Reads the entries of the pages due at the next [`AHEAD`] ticks with any (of the clock's
    /// window), and the calendar's lists of them: a page comes back long after it was touched,
    /// so its entry is mostly out of cache, and read tick by tick each miss was waited for
    /// alone (a third of a 10x clone of arc_OLTP, one page a tick). Read together, the misses
    /// overlap. Only loads: what is read is thrown away (the workspace forbids the `unsafe` a
    /// prefetch instruction needs), and a page pushed to an earlier tick since is read when
    /// due, as any page is.
    ///
    /// The next read is due once the clock passes the last tick read here: never past a tick
    /// with no entries (a tick of a later window, or `NEVER` when nothing is due), whose ticks
    /// are not listed yet. (Set to that tick, it stopped the reads for good at a clone's first
    /// tick, when nothing is due yet: the page table's read at a tick was then 20-28% of a 10x
    /// clone's time on cloudphysics and arc_P2, each miss waited for alone.)
    fn read_ahead(&mut self) {
        let (mut u, mut acc, mut read) = (self.t, 0u64, self.t);
        for _ in 0..AHEAD {
            u = self.calendar.next(u);
            let runs = self.calendar.peek(u);
            if runs.is_empty() {
                break;
            }
            read = u;
            // Every other page of a run (two entries a line), and its last.
            for r in runs {
                let (first, last) = (u64::from(r.page), u64::from(r.page) + u64::from(r.count) - 1);
                for p in (first..last).step_by(2).chain([last]) {
                    acc ^= self.pages.get(p).map_or(0, |e| e.due);
                }
            }
        }
        std::hint::black_box(acc);
        self.ahead = read;
    }

    /// Advances the clock until at least one request is queued; false when the clone's ticks
    /// are spent (without `length=`).
    fn step(&mut self) -> Result<bool> {
        while self.out.is_empty() {
            // Nothing is queued, so no ended page's entry is still to be read.
            self.pages.sweep(self.fresh);
            let run = match self.runs_at {
                (start, end, run) if start <= self.t && self.t < end => run,
                _ => {
                    // Kept for the ticks up to the next run's first when the last tick before
                    // it is in this run (the division is monotone).
                    let of = |t: u64| (t as f64 / self.span) as u64;
                    let run = of(self.t);
                    let end = ceil_u64((run + 1) as f64 * self.span);
                    if end > self.t && of(end - 1) == run {
                        self.runs_at = (self.t, end, run);
                    }
                    run
                }
            };
            if run > self.run {
                // A new run: the pages of the last one end, and it starts on new pages, from a
                // chunk of its own (so every chunk of the last run is freed).
                self.fresh = self.fresh.next_multiple_of(super::table::CHUNK);
                (self.run, self.run_first) = (run, self.fresh);
                self.pages.forget_below(self.fresh);
            }
            if self.length.is_none() && self.t as f64 >= self.span {
                return Ok(false);
            }
            self.keep_window(self.t);
            let (w, window_end) = self.window(self.t);
            // The pages due, in page order, joined into requests: pages in a row with the same
            // op, and the next pages in the row due within as many ticks as the request has
            // pages so far (a request's pages take one tick each in the original).
            // The entries in page order, each page taken once and only while it is due now (a
            // page rescheduled since is stale): the pages come out in order, as a page of a
            // later entry that lies within an earlier one's pages is taken by that one.
            self.due_runs.clear();
            self.calendar.take(self.t, &mut self.due_runs);
            self.due_runs.sort_unstable();
            if self.t >= self.ahead && self.pages.held() >= AHEAD_CHUNKS {
                self.read_ahead();
            }
            self.due.clear();
            let t = self.t;
            let (pages, run_first, due) = (&mut self.pages, self.run_first, &mut self.due);
            for r in &self.due_runs {
                for p in u64::from(r.page)..u64::from(r.page) + u64::from(r.count) {
                    match pages.get_mut(p) {
                        Some(e) if e.due == t && p >= run_first => {
                            e.due = NEVER;
                            due.push(p as u32);
                        }
                        _ => {}
                    }
                }
            }
            debug_assert!(self.due.windows(2).all(|w| w[0] < w[1]));
            let mut k = 0;
            while k < self.due.len() {
                let first = u64::from(self.due[k]);
                let o = self.pages.at(first).op as usize;
                let (mut n, mut at) = (1u64, k + 1);
                while n < self.max_pages {
                    let next = first + n;
                    if at < self.due.len() && u64::from(self.due[at]) == next && self.pages.at(next).op as usize == o {
                        at += 1;
                    } else if self.due_soon(next, n, o) {
                        self.pages.at(next).due = NEVER;
                    } else {
                        break;
                    }
                    n += 1;
                }
                // The pages come back together (one set of random numbers), in requests as long
                // as the original's reuse requests (drawn); see the module docs for their order.
                let rn = (self.rng.gen(), self.rng.gen(), self.rng.gen());
                self.cut(first, n, o, rn)?;
                k = at;
            }
            // New requests of each op, while its budget covers them.
            let rate = self.rate(w);
            for (c, r) in self.credit.iter_mut().zip(rate) {
                *c += r;
            }
            self.cap_credit();
            for o in (0..2).cycle().take(64) {
                let n = self.next_new(o)?.1;
                if self.credit[o] < n as f64 {
                    if self.credit[1 - o] < self.next_new(1 - o)?.1 as f64 {
                        break;
                    }
                    continue;
                }
                self.new_run(o, w)?;
            }
            self.forced = false;
            // The requests queued this tick are referenced now (their pages' next references
            // drawn); then the clock moves on, past ticks with nothing to do.
            for q in 0..self.out.len() {
                let (first, n, o, rn) = self.out[q];
                self.touch(first, u64::from(n), o, rn);
            }
            let mut next = self.t + 1;
            if self.out.is_empty() {
                let due = self.calendar.next(self.t);
                let rate = self.rate(w);
                let mut budget = u64::MAX;
                for (o, &r) in rate.iter().enumerate() {
                    let size = self.next_new(o)?.1 as f64;
                    let need = size - self.credit[o];
                    // A profile's budget waits for requests while its shape wants no more
                    // pages than it has (and, nothing due, the next new request is forced).
                    if r > 0.0 && self.left().map_or(true, |l| l >= size) {
                        budget = budget.min(self.t.saturating_add((need / r).ceil().max(1.0) as u64));
                    }
                }
                if due == u64::MAX && budget == u64::MAX && (w == WINDOWS - 1 || self.hold.is_some()) {
                    // Nothing due and no new pages left: the next new request of the op with
                    // more new pages, at the next tick.
                    let [r, wr] = self.new_pages_total;
                    let o = self.hold.as_ref().map_or(usize::from(wr > r), |h| usize::from(h.shape.write >= 0.5));
                    self.credit[o] += self.next_new(o)?.1 as f64;
                    self.forced = true;
                } else {
                    next = due.min(budget).min(window_end).max(self.t + 1);
                    for (c, r) in self.credit.iter_mut().zip(rate) {
                        *c += r * (next - self.t - 1) as f64;
                    }
                    self.cap_credit();
                }
            }
            self.t = next;
        }
        Ok(true)
    }
}

impl TraceReader for Renewal {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        if Some(self.i) == self.length || !self.step()? {
            return Ok(None);
        }
        let (first, n, o, _) = self.out.pop_front().expect("step queues a request");
        let e = *self.pages.at(first);
        // A request on exactly the pages of the new request that first touched them keeps its
        // bytes: its record is on its first page, or on its second when it started on the page
        // before (marked).
        let (offset, len) = if e.span == n && n > 0 && e.offset & BEFORE == 0 {
            (first * PAGE + u64::from(e.offset), e.len)
        } else if let Some(f) = self.pages.get(first + 1).filter(|f| n > 1 && f.span == n && f.offset & BEFORE != 0) {
            (first * PAGE + u64::from(f.offset & !BEFORE), f.len)
        } else {
            (first * PAGE, n * PAGE as u32)
        };
        // A request queued right after one whose last page is its first shares that page
        // (`new_run`, `cut`): it starts where that one ended, and that one ends mid-page (in the
        // middle, when nothing recorded its bytes), so that it reads as the original's did.
        let (mut offset, mut len) = (offset, u64::from(len));
        if let Some(end) = self.tail.take().filter(|&end| end / PAGE == first && offset % PAGE == 0 && end < offset + len) {
            len -= end - offset;
            offset = end;
        }
        if self.out.front().is_some_and(|q| n > 0 && q.0 == first + u64::from(n) - 1) {
            if (offset + len) % PAGE == 0 && len > PAGE / 2 {
                len -= PAGE / 2;
            }
            self.tail = Some(offset + len);
        }
        let len = len as u32;
        let time_ns = match &mut self.arrivals {
            Some(a) => {
                let next = a.next().map_err(|e| Error::config(format!("{}: request {}: {e}", self.label, self.i + 1)))?;
                let t = (next as u64).max(self.last_ns);
                self.last_ns = t;
                // A profile's rate (`iops=`) stretches the donor's times.
                let t = self.hold.as_ref().map_or(t, |h| (t as f64 * h.shape.time_factor) as u64);
                if t >= crate::time::HORIZON_NS {
                    let shorten =
                        if self.hold.is_some() { "shorten the profile (scale=) or raise its iops=" } else { "shorten the clone (length=)" };
                    return Err(Error::config(format!(
                        "{}: request {} would arrive past the latest time fcsim simulates ({}); {shorten}",
                        self.label,
                        self.i + 1,
                        crate::time::HORIZON
                    )));
                }
                t
            }
            None => self.i,
        };
        self.i += 1;
        if let Some(h) = &mut self.hold {
            h.writes += u64::from(o == 1);
            h.bytes[o] += u64::from(len);
        }
        let op = if o == 1 { Op::Write } else { Op::Read };
        Ok(Some(HostRequest { time_ns, volume: 0, offset, len, op }))
    }

    fn bad_lines(&self) -> u64 {
        self.skipped
    }

    fn format(&self) -> &'static str {
        "synth"
    }

    fn timed(&self) -> bool {
        self.arrivals.is_some()
    }

    fn repeats_ns(&self) -> Option<u64> {
        // A profile's times are stretched to its rate, its passes with them.
        let factor = self.hold.as_ref().map_or(1.0, |h| h.shape.time_factor);
        self.arrivals.as_ref().map(|a| (a.pass_ns() * factor) as u64)
    }

    fn progress(&self) -> (u64, u64) {
        match self.length {
            Some(n) => (self.i, n),
            None => (self.t, self.span as u64),
        }
    }

    fn error_at_last(&self, message: String) -> Error {
        Error::config(format!("{}: request {}: {message}", self.label, self.i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_u64_is_ceil() {
        // Whole and fractional values, either side of 2^52 and 2^53 (where f64 steps pass 1),
        // below 1, negative, and past u64's range: as `ceil() as u64` gives them.
        let big = (1u64 << 53) as f64;
        for x in [0.0, -0.0, 0.3, 1.0, 1.5, 2.0 - 1e-12, 1e9 + 0.5, 4503599627370495.5, big, big + 2.0, -3.7, 1e20, f64::NAN] {
            assert_eq!(ceil_u64(x), x.ceil() as u64, "{x}");
        }
    }

    #[test]
    fn gap_bins_cover_every_gap_once() {
        let mut next = 1;
        for b in 1..gbin(1 << 40) {
            let (lo, n) = gbin_range(b);
            assert_eq!(lo, next, "bin {b}");
            assert_eq!(gbin(lo), b);
            assert_eq!(gbin(lo + n - 1), b);
            next = lo + n;
        }
        assert_eq!((jbin(1), jbin(2), jbin(3), jbin(4), jbin(5), jbin(65), jbin(66)), (0, 1, 2, 2, 3, 7, 7));
        assert_eq!((octave(0), octave(1), octave(2), octave(3), octave(4)), (0, 1, 2, 2, 3));
    }

    use super::super::tests::{data, requests};

    /// The msr excerpt's most referenced pages have 33 and 34 references (class 33-64): no page
    /// of a clone passes 64, on any seed (before pages ended at their class's count, seed 5's
    /// clone had ten pages of 77 and more, 31% of its page accesses).
    #[test]
    fn no_page_of_a_clone_passes_its_class() {
        let orig = data("msr_hm_0_excerpt1000.csv");
        for seed in 1..=8 {
            // References as the fit counts them: a page a request shares with the one before it
            // (starts where it ended, mid-page) is that one's reference continued.
            let (mut refs, mut last): (FxHashMap<u64, u64>, _) = (FxHashMap::default(), None);
            for r in requests(&format!("clone={},seed={seed}", orig.display())) {
                let (first, n) = PageSplitter::new(PAGE as u32, KeyUnit::Bytes).pages(&r).unwrap();
                let skip = u64::from(shares_page(last, &r));
                last = Some((r.volume, r.offset + u64::from(r.len), r.op));
                (first + skip..first + n).for_each(|p| *refs.entry(p).or_default() += 1);
            }
            let most = refs.values().max().copied().unwrap_or(0);
            assert!((1..=64).contains(&most), "seed {seed}: a page referenced {most} times");
        }
    }

    #[test]
    fn a_saved_model_reads_back_and_clones_the_same() {
        let orig = data("msr_hm_0_excerpt1000.csv");
        let m = super::super::load(&orig, &Default::default()).unwrap();
        let c = m.renewal.as_ref().unwrap();
        // Every page access is a gap or a page's end, every page first touched once.
        let sum = |v: &Vec<Vec<u64>>| v.iter().flatten().sum::<u64>();
        let ends: u64 = c.ends.iter().sum();
        assert_eq!(sum(&c.events[0]) + sum(&c.events[1]) + ends, c.ticks);
        assert_eq!(ends, c.new_pages.iter().flatten().flatten().sum::<u64>());
        // A tick is a page access that is not a shared page's (one a request that shares it).
        assert_eq!(c.ticks + c.shared.iter().flatten().sum::<u64>(), m.accesses);
        let text = m.to_text();
        let dir = std::env::temp_dir().join(format!("fcsim-renewal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let saved = dir.join("hm0.model");
        std::fs::write(&saved, &text).unwrap();
        let back = super::super::Model::parse(&text, &saved).unwrap();
        assert_eq!(back.renewal.as_ref(), Some(c));
        let a = requests(&format!("clone={},model=renewal,seed=3", orig.display()));
        assert_eq!(a, requests(&format!("clone={},model=renewal,seed=3", saved.display())));
        assert_ne!(a, requests(&format!("clone={},model=renewal,seed=4", saved.display())));
        assert!(a.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
        // Without length=, the original's page accesses (ticks), about; with it, N requests.
        let pages: u64 = a.iter().map(|r| (r.offset % PAGE + u64::from(r.len).max(1)).div_ceil(PAGE)).sum();
        assert!((pages as f64) > 0.5 * c.ticks as f64 && (pages as f64) < 1.5 * c.ticks as f64, "{pages} pages for {} ticks", c.ticks);
        assert_eq!(requests(&format!("clone={},model=renewal,length=5000,scale=2", saved.display())).len(), 5000);
        // A model without reuse lines (of a trace without reuse requests) clones, its blocks
        // whole.
        let older: String = text.lines().filter(|l| !l.starts_with("renewal reuse")).map(|l| format!("{l}\n")).collect();
        let older_path = dir.join("older.model");
        std::fs::write(&older_path, older).unwrap();
        assert!(!requests(&format!("clone={},model=renewal,seed=3", older_path.display())).is_empty());
        // A model saved without the renewal counts is refused with the command that refits it.
        let old: String = text.lines().filter(|l| !l.starts_with("renewal")).map(|l| format!("{l}\n")).collect();
        let stale = dir.join("old.model");
        std::fs::write(&stale, old).unwrap();
        let err =
            super::super::open(&format!("clone={},model=renewal", stale.display()), false).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("no renewal counts") && err.contains("fcsim trace clone"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_renewal_specs_and_lines_say_what_was_expected() {
        let orig = data("msr_hm_0_excerpt1000.csv");
        let err = |spec: String| super::super::open(&spec, false).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err(format!("clone={},model=lru", orig.display())).contains("expected renewal or stack"));
        assert!(err(format!("clone={},model=renewal,ablate=size", orig.display()))
            .contains("expected frequency, recency, together, ops, requests, extents, sizes or pace"));
        assert!(err(format!("clone={},model=stack,ablate=ops", orig.display())).contains("model=renewal only"));
        // 1,917 pages x 2e6 (and an unused number a request) pass 2^32 page numbers.
        let m = super::super::load(&orig, &Default::default()).unwrap();
        let big = Renewal::new(&m, 2e6, None, 1, Ablate::default(), "t".into()).map(|_| ()).unwrap_err().to_string();
        assert!(big.contains("more than a clone has") && big.contains("the largest scale of this model is 1120231.423"), "{big}");
        // Under one page in all (1,917 x 1e-4 = 0.19): an empty clone, accepted before.
        let small = Renewal::new(&m, 1e-4, None, 1, Ablate::default(), "t".into()).map(|_| ()).unwrap_err().to_string();
        assert!(small.contains("less than one page") && small.contains("smallest scale of this model is 0.000522"), "{small}");
        let mut c = Counts::default();
        assert!(c.parse_line(&["state", "999999", "|"]).unwrap_err().contains("expected a state below"));
        assert!(c.parse_line(&["state", "3", "1:2", "|", "2:1"]).unwrap_err().contains("READ-GAPS | WRITE-GAPS | ENDS"));
        assert!(c.parse_line(&["new-pages", "64", "1", "2"]).unwrap_err().contains("expected a window below 64"));
        assert!(c.parse_line(&["new-pages", "3", "1,2", "2"]).unwrap_err().contains("two lists of 42 counts"));
        assert!(c.parse_line(&["sizes", "read", "4096:3"]).unwrap_err().contains("LEN+OFFSET:COUNT"));
        assert!(c.parse_line(&["reuse", "read", "0", "0:3"]).unwrap_err().contains("PAGES:COUNT (pages at least 1)"));
        assert!(c
            .parse_line(&["reuse", "read", "16", "1:3"])
            .unwrap_err()
            .contains("the bin (below 16) of the pages of the request before"));
        assert!(c.parse_line(&["reuse-sequential", "1"]).unwrap_err().contains("expected two counts"));
        assert!(c
            .parse_line(&["shared", "1", "2"])
            .unwrap_err()
            .contains("four counts (new reads, new writes, reuse reads, reuse writes)"));
        assert!(c.parse_line(&["shared", "1", "2", "x", "4"]).unwrap_err().contains("expected a count, found 'x'"));
        let bins = ["0"; SBINS];
        let line = |o: &'static str, k: &'static str, n: usize| [&["class-sizes", o, k, "9"][..], &bins[..n]].concat();
        assert!(c.parse_line(&line("read", "0", SBINS - 1)).unwrap_err().contains("its pages and 16 counts"));
        assert!(c.parse_line(&line("trim", "0", SBINS)).unwrap_err().contains("expected read or write"));
        assert!(c.parse_line(&line("write", "42", SBINS)).unwrap_err().contains("a class below 42"));
        c.parse_line(&line("write", "13", SBINS)).unwrap();
        assert!(c.check().is_err());
        // A class whose requests span fewer pages than they are (the draw divides by them).
        let mut r = m.renewal.clone().unwrap();
        r.check().unwrap();
        r.class_pages[1][0] = r.class_sizes[1][0].iter().sum::<u64>() - 1;
        assert!(r.check().unwrap_err().contains("span") && r.check().unwrap_err().contains("a page a request at least"));
        // A model of format 1 to 5 keeps its stack counts; its renewal counts (format 2's counted
        // a page shared by two sequential requests as a reference, format 3's have no class
        // sizes, format 4's classes no pace, format 5's reuse requests no bins) are refused, with the format and the command that
        // fits it again. A format this fcsim does not know is refused.
        let text = m.to_text();
        // Not the folder of the test above, which runs beside this one and removes its own.
        let dir = std::env::temp_dir().join(format!("fcsim-renewal-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for v in [1, 2, 3, 4, 5] {
            let old = dir.join(format!("old{v}.model"));
            std::fs::write(&old, text.replacen(super::super::model::MAGIC, &format!("fcsim-clone-model {v}"), 1)).unwrap();
            assert!(err(format!("clone={},model=stack", old.display())).is_empty());
            let e = err(format!("clone={}", old.display()));
            assert!(e.contains(&format!("model format {v}")) && e.contains("fcsim trace clone TRACE -o MODEL"), "{e}");
        }
        let new = dir.join("new.model");
        std::fs::write(&new, text.replacen(super::super::model::MAGIC, "fcsim-clone-model 7", 1)).unwrap();
        let e = err(format!("clone={}", new.display()));
        assert!(e.contains("'fcsim-clone-model 7'") && e.contains("reads 1 to 6") && e.contains("fcsim trace clone"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pages_referenced_together_come_back_together() {
        // Eight pages written by one request, never apart: their gaps are drawn with the same
        // random numbers from the same state, so every reuse is one request of eight pages. The
        // pages are of the class of pages referenced 3-4 times (a first reference is not their
        // last), written (the excerpt is mostly writes).
        let m = super::super::load(&data("msr_hm_0_excerpt1000.csv"), &Default::default()).unwrap();
        let fresh = |ablate: Ablate| {
            let mut g = Renewal::new(&m, 1.0, Some(20_000), 1, ablate, "t".into()).unwrap();
            g.pages.give(0, 8);
            for p in 0..8 {
                g.pages.at(p).class = 2;
            }
            g.fresh = 8;
            g.touch(0, 8, 1, (0.3, 0.7, 0.1));
            g
        };
        let g = fresh(Ablate::default());
        let dues: Vec<u64> = (0..8).map(|p| g.pages.get(p).unwrap().due).collect();
        assert!(dues[0] != NEVER && dues.iter().all(|&d| d == dues[0]), "{dues:?}");
        let apart = fresh(Ablate { together: true, ..Ablate::default() });
        let due = |p| apart.pages.get(p).unwrap().due;
        assert!((0..8).any(|p| due(p) != due(0)));
    }

    #[test]
    fn memory_follows_the_pages_alive_not_the_length() {
        // Ten times the requests of the clone's own run: ten runs, each on new pages, and the
        // page table and calendar stay at what the pages alive at once need.
        let m = super::super::load(&data("cloudphysics_vscsi_2h.csv.gz"), &Default::default()).unwrap();
        let peak = |length: Option<u64>| {
            let mut g = Renewal::new(&m, 1.0, length, 3, Ablate::default(), "t".into()).unwrap();
            let (mut n, mut peak) = (0u64, 0);
            while g.next_request().unwrap().is_some() {
                n += 1;
                if n % 4096 == 0 {
                    peak = peak.max(g.state_bytes());
                }
            }
            (n, peak, g.fresh)
        };
        let (n, own, fresh) = peak(None);
        let (_, long, long_fresh) = peak(Some(10 * n));
        println!("{n} requests: peak {own} bytes, {fresh} page numbers; x10: peak {long} bytes, {long_fresh} page numbers");
        assert!(long_fresh > 9 * fresh, "each run takes new pages");
        // At most two runs' state at once: a run's pages, and the calendar entries of the last
        // run's until their ticks pass (measured: 1.34x one run's peak; with the windows
        // stretched and a flat table, 14x, and 160 s instead of 8).
        assert!(long < 2 * own, "peak {long} bytes at 10x the length against {own}");
    }

    #[test]
    fn a_block_is_cut_into_reuse_requests_by_hand() {
        // A block of 8 due pages, every reuse request of the original 2 pages: four requests of
        // 2 pages with the block's random numbers. All of the original's reuse requests follow
        // on: every link kept (the share × 4 requests / (4 - 1 block) is above 1), one run in
        // page order. None do: four runs of one request, queued last first, so none follows on.
        let m = super::super::load(&data("msr_hm_0_excerpt1000.csv"), &Default::default()).unwrap();
        let cut = |share: f64, shared: f64| {
            let mut g = Renewal::new(&m, 1.0, Some(100), 1, Ablate::default(), "t".into()).unwrap();
            g.reuse = [0, 1].map(|_| vec![Tiling::new(&[(2, 1)]).unwrap(); SBINS]);
            (g.reuse_sequential, g.reuse_shared) = ([share; 2], [shared; 2]);
            g.cut(100, 8, 1, (0.1, 0.2, 0.3)).unwrap();
            g.out.iter().map(|&(p, n, o, rn)| (p, n, o, rn.0)).collect::<Vec<_>>()
        };
        assert_eq!(cut(1.0, 0.0), vec![(100, 2, 1, 0.1), (102, 2, 1, 0.1), (104, 2, 1, 0.1), (106, 2, 1, 0.1)]);
        assert_eq!(cut(0.0, 0.0), vec![(106, 2, 1, 0.1), (104, 2, 1, 0.1), (102, 2, 1, 0.1), (100, 2, 1, 0.1)]);
        // Every link kept and every one of the original's shares its first page: each request
        // after the first starts on the last page of the one before (one new page each), one run.
        let shared: Vec<u64> = cut(1.0, 1.0).iter().map(|q| q.0).collect();
        assert_eq!(shared, (100..=106).collect::<Vec<_>>());
        // Ablated, a block is one request.
        let mut g = Renewal::new(&m, 1.0, Some(100), 1, Ablate { requests: true, ..Ablate::default() }, "t".into()).unwrap();
        g.cut(100, 8, 0, (0.1, 0.2, 0.3)).unwrap();
        assert_eq!(g.out.iter().map(|q| (q.0, q.1)).collect::<Vec<_>>(), vec![(100, 8)]);
    }

    /// Requests in memory, for a fit by hand.
    struct Listed(std::vec::IntoIter<HostRequest>);

    impl TraceReader for Listed {
        fn next_request(&mut self) -> Result<Option<HostRequest>> {
            Ok(self.0.next())
        }
        fn format(&self) -> &'static str {
            "listed"
        }
        fn progress(&self) -> (u64, u64) {
            (0, 0)
        }
        fn error_at_last(&self, message: String) -> Error {
            Error::config(message)
        }
    }

    #[test]
    fn a_page_shared_by_sequential_requests_is_request_structure_by_hand() {
        let req = |offset: u64, len: u32, op: Op| HostRequest { time_ns: 0, volume: 0, offset, len, op };
        let trace = vec![
            // 1. Pages 0, 1 (ticks 0, 1): new, ends mid-page 1, at byte 4,608.
            req(512, 4096, Op::Write),
            // 2. Starts at 4,608, mid-page 1, a write as 1 was: page 1 is 1's reference
            //    continued (no tick, not a gap of 1); page 2 new (tick 2). Shared, new, write.
            req(4608, 4096, Op::Write),
            // 3. Page 0 again (tick 3): a gap of 3; a reuse request, not sequential.
            req(512, 512, Op::Read),
            // 4. Starts at 1,024 where 3 ended, mid-page 0, a read as 3 was: page 0 continued;
            //    page 1 (tick 4), a gap of 3 from tick 1. Shared, reuse, read.
            req(1024, 4096, Op::Read),
            // 5. Starts at 5,120 where 4 ended, mid-page 1, but a write after 4's read: a
            //    reference of its own (a write after a read of the page), page 1 at tick 5,
            //    a gap of 1. Sequential, not shared.
            req(5120, 100, Op::Write),
            // 6. Starts at 5,220 where 5 ended, mid-page 1, a write as 5 was, but ends on page
            //    1: no page of its own, a reference of page 1 (tick 6, a gap of 1). Sequential,
            //    not shared.
            req(5220, 100, Op::Write),
        ];
        let mut open = || -> Result<Box<dyn TraceReader>> { Ok(Box::new(Listed(trace.clone().into_iter()))) };
        let c = Counts::fit(&mut open, 7, None).unwrap();
        assert_eq!(c.ticks, 7);
        assert_eq!(c.shared, [[0, 1], [1, 0]], "[new, reuse][read, write]");
        assert_eq!((c.sequential, c.reuse_sequential), ([0, 1], [1, 2]));
        // Page 0 referenced twice, page 1 four times, page 2 once (count bins 1, 2, 0): the
        // shared accesses are not in the counts the classes are made of. Pages 0 and 1, each
        // alone in its count bin, are at both cuts of its thirds: pace 2.
        let gaps = |o: usize| -> Vec<(usize, u64)> {
            let mut m: std::collections::BTreeMap<usize, u64> = Default::default();
            for s in 0..STATES {
                for (b, &x) in c.events[o][s].iter().enumerate() {
                    *m.entry(dims(s)[1] * 100 + b).or_default() += x;
                }
            }
            m.into_iter().filter(|&(_, x)| x > 0).collect()
        };
        // Reads after gaps: page 0's 3 (count bin 1); page 1's 3 (count bin 2, the read of
        // request 4). Writes after gaps: page 1's two of 1 (requests 5 and 6).
        let (c0, c1) = (class(1, 2) * 100, class(2, 2) * 100);
        assert_eq!(gaps(0), vec![(c0 + gbin(3), 1), (c1 + gbin(3), 1)]);
        assert_eq!(gaps(1), vec![(c1 + gbin(1), 2)]);
        assert_eq!(c.ends.iter().sum::<u64>(), 3);
        // The new requests by the class of their first new page and the pages they span (as
        // their sizes give them): 1 on pages 0 and 1, first new page 0 (count bin 1); 2 on the
        // shared page 1 and page 2, first new page 2 (class 0). No new reads.
        let mut by_class = [[[0; SBINS]; CLASSES]; 2];
        (by_class[1][class(1, 2)][sbin(2)], by_class[1][0][sbin(2)]) = (1, 1);
        assert_eq!(c.class_sizes, by_class);
        assert_eq!((c.class_pages[1][class(1, 2)], c.class_pages[1][0]), (2, 2));
        assert_eq!(c.class_pages[1].iter().sum::<u64>(), 4);
        assert_eq!(c.class_pages[0], [0; CLASSES]);
        // New pages in the windows of their own ticks (0, 1 and 2 of 7: windows 0, 9 and 18 of
        // 64), not all in the first: a short trace's new pages spread as they came.
        let mut windows = vec![[[0; CLASSES]; 2]; WINDOWS];
        (windows[0][1][class(1, 2)], windows[9][1][class(2, 2)], windows[18][1][0]) = (1, 1, 1);
        assert_eq!(c.new_pages, windows);
        // Reuse requests by the bin of the pages of the request that last referenced their
        // first page of their own: 3 (page 0, last referenced by 1, of two pages) of one page
        // and 4 (its own first page 1, last referenced by 1: 2 shares it) of two, reads; 5
        // (page 1, last referenced by 4, of two pages) and 6 (page 1, by 5, of one), writes of
        // one page.
        let mut reuse: [[Values; SBINS]; 2] = Default::default();
        reuse[0][sbin(2)] = vec![(1, 1), (2, 1)];
        (reuse[1][sbin(2)], reuse[1][sbin(1)]) = (vec![(1, 1)], vec![(1, 1)]);
        assert_eq!(c.reuse, reuse);
        c.check().unwrap();
    }

    #[test]
    fn a_block_is_cut_by_the_lengths_that_followed_a_request_like_its_pages_last_by_hand() {
        // A block of 16 write pages, the first 8 last referenced by a request of 8 pages, the
        // rest by requests of one page; after a request of 5-8 pages every reuse write of the
        // original was of 8 pages, after one of a page of one page: one request of 8, then 8
        // of one page (every link kept, one run in page order).
        let m = super::super::load(&data("msr_hm_0_excerpt1000.csv"), &Default::default()).unwrap();
        let mut g = Renewal::new(&m, 1.0, Some(100), 1, Ablate::default(), "t".into()).unwrap();
        let mut bins = vec![Tiling::new(&[(1, 1)]).unwrap(); SBINS];
        bins[sbin(8)] = Tiling::new(&[(8, 1)]).unwrap();
        g.reuse[1] = bins;
        (g.reuse_sequential, g.reuse_shared) = ([1.0; 2], [0.0; 2]);
        let first = g.fresh.next_multiple_of(8);
        g.pages.give(first, 16);
        for p in first..first + 16 {
            g.pages.at(p).from = if p < first + 8 { sbin(8) } else { sbin(1) } as u8;
        }
        g.cut(first, 16, 1, (0.1, 0.2, 0.3)).unwrap();
        let pieces: Vec<(u64, u32)> = g.out.iter().map(|&(p, n, ..)| (p - first, n)).collect();
        assert_eq!(pieces, [(0, 8), (8, 1), (9, 1), (10, 1), (11, 1), (12, 1), (13, 1), (14, 1), (15, 1)]);
        // Pooled (`ablate=extents`), the lengths are 8 (1 in 9) or 1 (8 in 9), each tiling the
        // rest of the block: no piece runs past it.
        let mut g = Renewal::new(&m, 1.0, Some(100), 1, Ablate { extents: true, ..Ablate::default() }, "t".into()).unwrap();
        g.pages.give(first, 16);
        g.cut(first, 16, 1, (0.1, 0.2, 0.3)).unwrap();
        assert_eq!(g.out.iter().map(|q| u64::from(q.1)).sum::<u64>(), 16);
    }

    #[test]
    fn a_new_requests_class_comes_with_its_size_by_hand() {
        // Class 0's new writes are all 8 pages, class 2's all 1 page (20 each); class 1 has none
        // of its own and takes those of classes 0 to 2 (40 requests of 180 pages).
        let mut counts = [[[0; SBINS]; CLASSES]; 2];
        let mut pages = [[0; CLASSES]; 2];
        (counts[1][0][sbin(8)], pages[1][0]) = (20, 160);
        (counts[1][2][sbin(1)], pages[1][2]) = (20, 20);
        let sizes: Values = vec![(4096 << 12, 20), ((8 * 4096) << 12, 20)];
        let cs = ClassSizes::new(&counts, &pages, [&sizes, &sizes]).unwrap();
        assert_eq!((cs.per_page[1][0], cs.per_page[1][1], cs.per_page[1][2]), (20.0 / 160.0, 40.0 / 180.0, 1.0));
        assert_eq!((cs.bins[1][0][sbin(8) - 1], cs.bins[1][0][sbin(8)]), (0.0, 1.0));
        assert_eq!((cs.bins[1][1][sbin(1)], cs.bins[1][2][sbin(1)]), (0.5, 1.0));
        // Reads (no new requests of their own) take the writes'.
        assert_eq!((cs.per_page[0], cs.bins[0]), (cs.per_page[1], cs.bins[1]));
        assert!(cs.sizes[1][sbin(8)].is_some() && cs.sizes[1][sbin(1)].is_some() && cs.sizes[1][sbin(2)].is_none());
        // Every window's new writes: a third class 0, two thirds class 2. Each request comes
        // with its class's size, and the classes still get their pages: a class-0 request
        // (8 pages) is drawn with weight 1 x 1/8, a class-2 one with 2 x 1, so 1 in 17 requests
        // and a third of the pages are class 0.
        let m = super::super::load(&data("msr_hm_0_excerpt1000.csv"), &Default::default()).unwrap();
        let mut g = Renewal::new(&m, 1.0, Some(100), 1, Ablate::default(), "t".into()).unwrap();
        g.class_sizes = Some(Box::new(cs));
        g.sequential = [0.0; 2];
        for w in &mut g.classes {
            w[1] = [0; CLASSES];
            (w[1][0], w[1][2]) = (1, 2);
        }
        for _ in 0..3000 {
            g.new_run(1, 0).unwrap();
        }
        let mut by_class = [0u64; CLASSES];
        for &(first, n, _, _) in &g.out {
            let class = g.pages.at(first).class;
            assert_eq!(u64::from(n), if class == 0 { 8 } else { 1 }, "class {class}");
            by_class[usize::from(class)] += u64::from(n);
        }
        let share = by_class[0] as f64 / (by_class[0] + by_class[2]) as f64;
        assert!((share - 1.0 / 3.0).abs() < 0.03, "{by_class:?}");
    }

    #[test]
    fn a_new_request_that_follows_on_mid_page_shares_the_page_by_hand() {
        // Every new write is 4 KiB at 512 bytes into a page and follows on, and every sequential
        // new write of the original shares its first page: a run's first request takes pages 1
        // and 2 (after the unused page 0), ends at byte 512 of page 2, and the next starts
        // there, on pages 2 and 3, and so on: a new page each.
        let m = super::super::load(&data("msr_hm_0_excerpt1000.csv"), &Default::default()).unwrap();
        let mut g = Renewal::new(&m, 1.0, Some(100), 1, Ablate::default(), "t".into()).unwrap();
        g.sizes = [Bag::new(&[((4096 << 12) | 512, 1)]), Bag::new(&[((4096 << 12) | 512, 1)])];
        g.class_sizes = None;
        (g.sequential, g.shared) = ([1.0; 2], [1.0; 2]);
        g.credit = [0.0, 5.0];
        g.new_run(1, 0).unwrap();
        let firsts: Vec<(u64, u32)> = g.out.iter().take(3).map(|q| (q.0, q.1)).collect();
        assert_eq!(firsts, vec![(1, 2), (2, 2), (3, 2)]);
        // Paid a new page each after the first's two.
        assert_eq!(g.credit[1], 5.0 - 2.0 - (g.out.len() - 1) as f64);
        assert_eq!(g.fresh, 2 + g.out.len() as u64);
        for q in 0..g.out.len() {
            let (first, n, o, rn) = g.out[q];
            g.touch(first, u64::from(n), o, rn);
        }
        // The shared pages drew once: one reference each, as the pages of one request.
        assert!((1..g.fresh).all(|p| g.pages.get(p).unwrap().refs == 1));
        // Out with their bytes: each starts where the one before ended.
        let a = g.next_request().unwrap().unwrap();
        let b = g.next_request().unwrap().unwrap();
        assert_eq!((a.offset, a.len, b.offset, b.len), (4096 + 512, 4096, 2 * 4096 + 512, 4096));
    }

    #[test]
    fn paces_are_thirds_of_a_count_bins_mean_log_gap_by_hand() {
        // (references, last tick, sum of log2 gaps). Three pages of 3 references (count bin 2)
        // whose gaps are 2, 8 and 32 ticks (mean log2 1, 3, 5): thirds cut at the second and
        // the third, so fast, middle and slow. A page of one reference has no gap: pace 0. A
        // page alone in its count bin (2 references) is at both cuts: pace 2.
        let h: FxHashMap<u64, (u64, u64, f64)> =
            [(1, (3, 0, 2.0)), (2, (3, 0, 6.0)), (3, (3, 0, 10.0)), (4, (1, 0, 0.0)), (5, (2, 0, 4.0))].into_iter().collect();
        let p = paces(&h);
        assert_eq!([p[&1], p[&2], p[&3]], [class(2, 0), class(2, 1), class(2, 2)].map(|c| c as u8));
        assert_eq!((p[&4], p[&5]), (class(0, 0) as u8, class(1, 2) as u8));
        // A clone's pages of a count bin keep to their paces: the fitted classes of the msr
        // excerpt's pages of 2 or more references are of every pace.
        let m = super::super::load(&data("msr_hm_0_excerpt1000.csv"), &Default::default()).unwrap();
        let c = m.renewal.as_ref().unwrap();
        let paces: std::collections::BTreeSet<usize> =
            (0..STATES).filter(|&s| c.events.iter().any(|e| !e[s].is_empty())).map(|s| dims(s)[1] / COUNTS).collect();
        assert_eq!(paces, (0..PACES).collect());
    }

    #[test]
    fn gaps_and_ends_by_hand() {
        // Gaps of 1 (a read, then a write), of 2 (a write) and one end: P(1) = 2/4, P(2) = 1/4,
        // P(no further reference) = 1/4; after a gap of 1 a write half the time, of 2 always.
        let g = Gaps::new(&[0, 1, 0], &[0, 1, 1], 1, None);
        assert!((g.cum[1] - 0.5).abs() < 1e-12);
        assert!((g.cum[2] - 0.75).abs() < 1e-12);
        assert_eq!(g.draw(0.2, 0.0, 0.4), Some((1, 1)));
        assert_eq!(g.draw(0.2, 0.0, 0.6), Some((1, 0)));
        assert_eq!(g.draw(0.6, 0.9, 0.99), Some((2, 1)));
        assert_eq!(g.draw(0.8, 0.0, 0.0), None);
    }
}
