//! The CPU model's behaviours: back to back on one core, sharing, parallel
//! cores, bounded queues, hold and release, the front of the queue, the
//! order of events, polling, CPU used; and properties over random loads.

use super::*;
use proptest::prelude::*;

/// A job: its label and its cost in ns; its output is its label.
type Job = (u32, u64);
type TestCpu = Cpu<Job, u32>;

/// What a run shows: (`S`tart or `D`one, thread index, label, time).
type Seen = (char, usize, u32, u64);

fn cpu(threads: &[(&str, Option<usize>)], cores: u32) -> TestCpu {
    let specs = threads
        .iter()
        .map(|&(name, capacity)| ThreadSpec::new(name, capacity))
        .collect();
    Cpu::new(specs, cores).unwrap()
}

fn unbounded(n: usize, cores: u32) -> TestCpu {
    let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    let threads: Vec<_> = names.iter().map(|n| (n.as_str(), None)).collect();
    cpu(&threads, cores)
}

/// The earliest end of a running job and its thread, the long way: each
/// running job's end on the current segment, the lowest index among the
/// earliest (what `Cpu::earliest_done` finds with one division).
fn earliest_done_by_every_end(cpu: &TestCpu) -> Option<(u64, usize)> {
    let mut best: Option<(u64, usize)> = None;
    for (i, t) in cpu.threads.iter().enumerate() {
        if let State::Running { tag, .. } = t.state {
            let at = cpu.end_of(tag);
            if best.is_none_or(|(b, _)| at < b) {
                best = Some((at, i));
            }
        }
    }
    best
}

/// Pull every event up to `until`, answering each start with the job's
/// cost; before each, the earliest end is checked against the long way.
fn drain(cpu: &mut TestCpu, until: u64) -> Vec<Seen> {
    let mut seen = Vec::new();
    loop {
        assert_eq!(cpu.earliest_done(), earliest_done_by_every_end(cpu));
        let Some(event) = cpu.next(until).unwrap() else {
            break;
        };
        match event {
            Event::Start {
                thread,
                job: (label, cost),
                at,
            } => {
                cpu.started(thread, cost, label).unwrap();
                seen.push(('S', thread.index(), label, at));
            }
            Event::Done { thread, out, at } => seen.push(('D', thread.index(), out, at)),
        }
    }
    seen
}

fn dones(seen: &[Seen]) -> Vec<(u32, u64)> {
    seen.iter()
        .filter(|s| s.0 == 'D')
        .map(|s| (s.2, s.3))
        .collect()
}

fn t(i: usize) -> ThreadId {
    ThreadId(i)
}

#[test]
fn one_thread_on_one_core_runs_jobs_back_to_back() {
    let mut cpu = unbounded(1, 1);
    for (label, cost) in [(1, 100), (2, 250), (3, 50)] {
        cpu.submit(t(0), (label, cost)).unwrap();
    }
    let seen = drain(&mut cpu, u64::MAX);
    assert_eq!(dones(&seen), [(1, 100), (2, 350), (3, 400)]);
    let starts: Vec<_> = seen.iter().filter(|s| s.0 == 'S').map(|s| s.3).collect();
    assert_eq!(starts, [0, 100, 350]);
    assert!(cpu.is_idle());
}

#[test]
fn two_threads_on_one_core_share_it_and_a_lone_one_runs_at_full_speed() {
    let mut cpu = unbounded(2, 1);
    cpu.submit(t(0), (1, 100)).unwrap();
    cpu.submit(t(1), (2, 300)).unwrap();
    // Both at half speed until job 1 is done at 200 (100 of work each);
    // job 2's remaining 200 then runs alone at full speed.
    assert_eq!(dones(&drain(&mut cpu, u64::MAX)), [(1, 200), (2, 400)]);
}

#[test]
fn a_job_arriving_later_slows_the_running_one_only_from_then() {
    let mut cpu = unbounded(2, 1);
    cpu.submit(t(0), (1, 100)).unwrap();
    assert_eq!(drain(&mut cpu, 50), [('S', 0, 1, 0)]);
    assert_eq!(cpu.now(), 50);
    cpu.submit(t(1), (2, 100)).unwrap();
    // Job 1 has 50 left, at half speed: done at 150; job 2 then has 50
    // left alone: done at 200.
    assert_eq!(dones(&drain(&mut cpu, u64::MAX)), [(1, 150), (2, 200)]);
}

#[test]
fn four_threads_on_four_cores_run_in_parallel() {
    let mut cpu = unbounded(4, 4);
    for i in 0..4 {
        cpu.submit(t(i), (i as u32, 1_000)).unwrap();
    }
    let seen = drain(&mut cpu, u64::MAX);
    assert_eq!(
        dones(&seen),
        [(0, 1_000), (1, 1_000), (2, 1_000), (3, 1_000)]
    );
    // Four threads on two cores: each at half speed.
    let mut cpu = unbounded(4, 2);
    for i in 0..4 {
        cpu.submit(t(i), (i as u32, 1_000)).unwrap();
    }
    let seen = drain(&mut cpu, u64::MAX);
    assert_eq!(
        dones(&seen),
        [(0, 2_000), (1, 2_000), (2, 2_000), (3, 2_000)]
    );
}

#[test]
fn three_threads_on_two_cores_progress_at_two_thirds_rounded_up_to_the_nanosecond() {
    let mut cpu = unbounded(3, 2);
    for i in 0..3 {
        cpu.submit(t(i), (i as u32, 100)).unwrap();
    }
    // 100 ns of work at 2/3 ns per ns: 150 ns exactly.
    assert_eq!(
        dones(&drain(&mut cpu, u64::MAX)),
        [(0, 150), (1, 150), (2, 150)]
    );
    let mut cpu = unbounded(3, 2);
    for i in 0..3 {
        cpu.submit(t(i), (i as u32, 101)).unwrap();
    }
    // 151.5 ns: never earlier than exact sharing, so 152.
    assert_eq!(
        dones(&drain(&mut cpu, u64::MAX)),
        [(0, 152), (1, 152), (2, 152)]
    );
}

#[test]
fn a_bounded_queue_refuses_the_job_past_its_capacity_and_accepts_once_one_started() {
    let mut cpu = cpu(&[("q", Some(2))], 1);
    cpu.submit(t(0), (1, 10)).unwrap();
    cpu.submit(t(0), (2, 10)).unwrap();
    let refused = cpu.submit(t(0), (3, 10)).unwrap_err();
    assert_eq!(refused.job, (3, 10));
    assert_eq!(refused.to_string(), "thread q: its queue is full (2 jobs)");
    assert_eq!(cpu.queue_len(t(0)), 2);
    // Job 1 starts: one place frees up.
    assert_eq!(drain(&mut cpu, 0), [('S', 0, 1, 0)]);
    assert_eq!(cpu.queue_len(t(0)), 1);
    cpu.submit(t(0), (3, 10)).unwrap();
    assert!(cpu.submit(t(0), (4, 10)).is_err());
    // A verdict coming back ignores the capacity.
    cpu.submit_front(t(0), (5, 10)).unwrap();
    assert_eq!(cpu.queue_len(t(0)), 3);
}

#[test]
fn a_held_thread_starts_nothing_until_released_while_others_go_on() {
    let mut cpu = unbounded(2, 2);
    cpu.submit(t(0), (1, 100)).unwrap();
    cpu.submit(t(0), (2, 100)).unwrap();
    cpu.submit(t(1), (3, 100)).unwrap();
    cpu.submit(t(1), (4, 100)).unwrap();
    // Thread 0 starts job 1, and is held once it is done.
    assert_eq!(drain(&mut cpu, 0), [('S', 0, 1, 0), ('S', 1, 3, 0)]);
    assert_eq!(cpu.next(100).unwrap().map(|e| e.at()), Some(100));
    cpu.hold(t(0)).unwrap();
    assert!(cpu.is_held(t(0)));
    let seen = drain(&mut cpu, 1_000);
    assert_eq!(seen, [('D', 1, 3, 100), ('S', 1, 4, 100), ('D', 1, 4, 200)]);
    assert_eq!(cpu.queue_len(t(0)), 1);
    assert_eq!(cpu.next_time(), None);
    cpu.release(t(0)).unwrap();
    assert_eq!(cpu.next_time(), Some(1_000));
    assert_eq!(
        drain(&mut cpu, u64::MAX),
        [('S', 0, 2, 1_000), ('D', 0, 2, 1_100)]
    );
}

#[test]
fn holding_a_running_thread_lets_its_job_finish() {
    let mut cpu = unbounded(1, 1);
    cpu.submit(t(0), (1, 100)).unwrap();
    cpu.submit(t(0), (2, 100)).unwrap();
    assert_eq!(drain(&mut cpu, 0), [('S', 0, 1, 0)]);
    cpu.hold(t(0)).unwrap();
    assert_eq!(drain(&mut cpu, u64::MAX), [('D', 0, 1, 100)]);
    assert_eq!(cpu.queue_len(t(0)), 1);
}

#[test]
fn submit_front_goes_before_the_queued_jobs() {
    let mut cpu = unbounded(1, 1);
    cpu.submit(t(0), (1, 10)).unwrap();
    cpu.submit(t(0), (2, 10)).unwrap();
    cpu.submit_front(t(0), (9, 10)).unwrap();
    let labels: Vec<_> = dones(&drain(&mut cpu, u64::MAX))
        .iter()
        .map(|d| d.0)
        .collect();
    assert_eq!(labels, [9, 1, 2]);
}

#[test]
fn events_of_one_instant_come_done_first_then_starts_by_thread_index() {
    let mut cpu = unbounded(3, 3);
    cpu.submit(t(2), (1, 100)).unwrap();
    cpu.submit(t(1), (2, 100)).unwrap();
    cpu.submit(t(2), (3, 0)).unwrap();
    cpu.submit(t(1), (4, 50)).unwrap();
    cpu.submit(t(0), (5, 0)).unwrap();
    let seen = drain(&mut cpu, u64::MAX);
    assert_eq!(
        seen,
        [
            // A zero-cost job is done the moment it starts, before the
            // next start of that instant.
            ('S', 0, 5, 0),
            ('D', 0, 5, 0),
            ('S', 1, 2, 0),
            ('S', 2, 1, 0),
            ('D', 1, 2, 100),
            ('D', 2, 1, 100),
            ('S', 1, 4, 100),
            ('S', 2, 3, 100),
            ('D', 2, 3, 100),
            ('D', 1, 4, 150),
        ]
    );
}

#[test]
fn next_returns_nothing_after_until_and_moves_the_clock_to_it() {
    let mut cpu = unbounded(1, 1);
    cpu.submit(t(0), (1, 100)).unwrap();
    assert_eq!(drain(&mut cpu, 99), [('S', 0, 1, 0)]);
    assert_eq!(cpu.now(), 99);
    assert_eq!(cpu.next_time(), Some(100));
    // The clock never goes back: an earlier `until` sees nothing.
    assert_eq!(cpu.next(10).unwrap(), None);
    assert_eq!(cpu.now(), 99);
    assert_eq!(drain(&mut cpu, 100), [('D', 0, 1, 100)]);
    assert_eq!(cpu.next_time(), None);
}

#[test]
fn polling_often_or_rarely_gives_the_same_events() {
    let load = |cpu: &mut TestCpu| {
        cpu.submit(t(0), (1, 333)).unwrap();
        cpu.submit(t(1), (2, 777)).unwrap();
        cpu.submit(t(2), (3, 101)).unwrap();
        cpu.submit(t(2), (4, 1)).unwrap();
    };
    let mut once = unbounded(3, 2);
    load(&mut once);
    let all = drain(&mut once, u64::MAX);
    let mut often = unbounded(3, 2);
    load(&mut often);
    let mut stepped = Vec::new();
    for until in (0..2_000).step_by(7) {
        stepped.extend(drain(&mut often, until));
    }
    assert_eq!(stepped, all);
}

#[test]
fn busy_ns_sums_the_cpu_each_thread_used() {
    let mut cpu = unbounded(2, 1);
    cpu.submit(t(0), (1, 100)).unwrap();
    cpu.submit(t(0), (2, 40)).unwrap();
    cpu.submit(t(1), (3, 1_000)).unwrap();
    // At 100 both have run at half speed: 50 ns of CPU each.
    drain(&mut cpu, 100);
    assert_eq!((cpu.busy_ns(t(0)), cpu.busy_ns(t(1))), (50, 50));
    let seen = drain(&mut cpu, u64::MAX);
    // Whatever the sharing, each used what its jobs cost.
    assert_eq!((cpu.busy_ns(t(0)), cpu.busy_ns(t(1))), (140, 1_000));
    assert_eq!(dones(&seen).last(), Some(&(3, 1_140)));
    assert_eq!(cpu.busy_ns(t(7)), 0);
}

#[test]
fn misuse_gets_a_typed_error_naming_the_thread() {
    let mut cpu = cpu(&[("dist", None), ("voting", None)], 1);
    assert_eq!(
        cpu.started(t(0), 1, 0).unwrap_err().to_string(),
        "thread dist was handed no job to start"
    );
    cpu.submit(t(1), (1, 10)).unwrap();
    assert!(matches!(cpu.next(0), Ok(Some(Event::Start { .. }))));
    assert_eq!(
        cpu.next(0).unwrap_err().to_string(),
        "thread voting still waits for the cost of the job it started"
    );
    assert_eq!(cpu.next_time(), Some(0));
    assert!(cpu.started(t(0), 10, 1).is_err());
    cpu.started(t(1), 10, 1).unwrap();
    let refused = cpu.submit(t(2), (2, 1)).unwrap_err();
    assert_eq!(refused.to_string(), "no thread 2: this CPU has 2");
    assert_eq!(refused.job, (2, 1));
    assert!(cpu.submit_front(t(2), (2, 1)).is_err());
    assert!(cpu.hold(t(2)).is_err());
    assert!(cpu.release(t(5)).is_err());
}

#[test]
fn bad_construction_is_refused() {
    let build = |threads: Vec<ThreadSpec>, cores| Cpu::<Job, u32>::new(threads, cores);
    let one = || vec![ThreadSpec::new("a", None)];
    assert_eq!(build(one(), 0).unwrap_err(), CpuError::NoCores);
    assert_eq!(build(vec![], 1).unwrap_err(), CpuError::NoThreads);
    assert_eq!(
        build(vec![ThreadSpec::new("a", Some(0))], 1)
            .unwrap_err()
            .to_string(),
        "thread a: a queue capacity must be at least 1"
    );
    let twice = vec![ThreadSpec::new("a", None), ThreadSpec::new("a", None)];
    assert_eq!(
        build(twice, 1).unwrap_err().to_string(),
        "two threads are named a"
    );
    let cpu = build(one(), 3).unwrap();
    assert_eq!(cpu.find("a"), Some(t(0)));
    assert_eq!(cpu.find("b"), None);
}

#[test]
fn huge_costs_saturate_instead_of_overflowing() {
    let mut cpu = unbounded(2, 1);
    cpu.submit(t(0), (1, u64::MAX)).unwrap();
    cpu.submit(t(1), (2, u64::MAX)).unwrap();
    drain(&mut cpu, 0);
    assert_eq!(cpu.next_time(), Some(u64::MAX));
    assert_eq!(drain(&mut cpu, u64::MAX).len(), 2);
}

/// A random load: (thread, cost, submitted at), and how many threads and
/// cores.
fn load() -> impl Strategy<Value = (usize, u32, Vec<(usize, u64, u64)>)> {
    (1usize..6, 1u32..5).prop_flat_map(|(threads, cores)| {
        let job = (0..threads, 0u64..5_000, 0u64..20_000);
        (
            Just(threads),
            Just(cores),
            prop::collection::vec(job, 0..40),
        )
    })
}

/// Run `jobs` (sorted by submission time), pulling events in steps of
/// `step` ns between submissions.
fn run(threads: usize, cores: u32, jobs: &[(usize, u64, u64)], step: u64) -> (Vec<Seen>, TestCpu) {
    let mut cpu = unbounded(threads, cores);
    let mut jobs = jobs.to_vec();
    jobs.sort_by_key(|j| j.2);
    let mut seen = Vec::new();
    for (label, &(thread, cost, at)) in jobs.iter().enumerate() {
        let mut until = cpu.now();
        while until < at {
            until = until.saturating_add(step).min(at);
            seen.extend(drain(&mut cpu, until));
        }
        cpu.submit(t(thread), (label as u32, cost)).unwrap();
    }
    seen.extend(drain(&mut cpu, u64::MAX));
    (seen, cpu)
}

proptest! {
    #[test]
    fn every_job_runs_once_within_the_bounds_of_sharing(
        (threads, cores, jobs) in load(),
        step in 50u64..3_000,
    ) {
        let (seen, cpu) = run(threads, cores, &jobs, u64::MAX);
        // The same events however often the caller polls.
        let (stepped, _) = run(threads, cores, &jobs, step);
        prop_assert_eq!(&stepped, &seen);
        let mut sorted = jobs.clone();
        sorted.sort_by_key(|j| j.2);
        let mut start = vec![None; sorted.len()];
        let mut last = 0;
        for &(kind, thread, label, at) in &seen {
            prop_assert!(at >= last, "events out of time order");
            last = at;
            let (job_thread, cost, submitted) = sorted[label as usize];
            prop_assert_eq!(thread, job_thread);
            if kind == 'S' {
                prop_assert!(at >= submitted);
                prop_assert!(start[label as usize].replace(at).is_none());
            } else {
                let began = start[label as usize].expect("done after its start");
                // At full speed at best; at worst sharing every core with
                // every other thread (plus the rounding up).
                prop_assert!(at >= began + cost);
                let slowdown = (threads as u64).div_ceil(u64::from(cores)).max(1);
                prop_assert!(at <= began + cost * slowdown + threads as u64);
            }
        }
        prop_assert!(start.iter().all(Option::is_some));
        prop_assert!(cpu.is_idle());
        // Each thread used exactly what its jobs cost.
        for i in 0..threads {
            let cost: u64 = jobs.iter().filter(|j| j.0 == i).map(|j| j.1).sum();
            prop_assert_eq!(cpu.busy_ns(t(i)), cost);
        }
        // No more CPU than the cores give.
        let total: u64 = jobs.iter().map(|j| j.1).sum();
        prop_assert!(total <= last.saturating_mul(u64::from(cores)));
    }
}
