/*
 * vgtool/hsrec_proto.h: the stream the Valgrind tool hsrec writes and
 * hindsight's Valgrind recorder (stub/recorders/stub_vgrec.c) reads.
 *
 * This header holds no code, only the wire format both sides agree on; it
 * is included by the GPL tool (vgtool/hsrec_main.c, which cannot include
 * anything else of hindsight) and by hindsight itself.
 *
 * The stream is a sequence of records, each starting with a 32-bit word,
 * little-endian, with no alignment:
 *   0xxxxxxx  a superblock was entered: its id (< 2^31, described by an
 *             earlier BLOCK record of the same tool instance)
 *   80kkkkkk  the superblock entered last left through its side exit k
 *             (k < 2^24, counted in the BLOCK record's exit list)
 *   FFkkllll  a control record of kind kk with llll bytes of payload
 *   Cknnnnaa  state of the superblock entered last (kind k, HSREC_ST_*): of
 *             its instruction nnnn (0-based, as in its BLOCK record), arg aa
 *             (a register slot, a size); emitted in the order things
 *             happen, an instruction's registers at its end
 * Everything the threads execute arrives in the order it ran (Valgrind
 * runs one thread at a time); SWITCH says which thread the following
 * superblocks belong to.
 */
#ifndef HINDSIGHT_VGTOOL_HSREC_PROTO_H
#define HINDSIGHT_VGTOOL_HSREC_PROTO_H

#define HSREC_VERSION 2            /* 2: HSREC_GOON */
#define HSREC_EXIT_BIT 0x80000000u
#define HSREC_CTL 0xFF000000u
#define HSREC_CTL_KIND(w) (((w) >> 16) & 0xFFu)
#define HSREC_CTL_LEN(w) ((w) & 0xFFFFu)
#define HSREC_MAX_EXITS (1u << 24)
#define HSREC_ST 0xC0000000u
#define HSREC_ST_MASK 0xF0000000u
#define HSREC_ST_KIND(w) (((w) >> 24) & 0xFu)
#define HSREC_ST_INSN(w) (((w) >> 8) & 0xFFFFu)
#define HSREC_ST_ARG(w) ((w) & 0xFFu)
#define HSREC_NGP 27               /* struct user_regs_struct's 8-byte fields */

/* Valgrind's special instruction sequence (valgrind.h): four rotates of
 * rdi by 3, 13, 61 and 51 bits (together none), then a 3-byte marker. VEX
 * takes the 19 bytes as one instruction; the program's bytes, and so the
 * decoded history, hold five. The tool describes one whose marker is a
 * client request as its five (hsrec_instr.c, hs_imark_insns); the others
 * come as one of 19 bytes, which hindsight refuses (stub_vgrec.c). */
#define HSREC_SPECIAL_LEN 16
#define HSREC_SPECIAL { 0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d, \
			0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33 }

/* State words of a superblock. */
enum hsrec_st {
	/* + u64: the register in user_regs_struct slot arg now holds it
	 * (eflags as the CPU shows it: bit 1 and IF set) */
	HSREC_ST_REG = 0,
	/* + u64 addr, arg old bytes, arg new bytes: a store (written before
	 * it happens: the instruction may still fault, then it did not) */
	HSREC_ST_STORE = 1,
	/* + u64 addr, u64 len: memory written in a way not followed (a
	 * masked store, a helper's write): its contents unknown from here */
	HSREC_ST_UNKNOWN = 2,
};

/* Control records; payload fields are packed, little-endian. */
enum hsrec_kind {
	/* u32 version, u32 pid, then the executable's path (no NUL): the tool
	 * starts, in the recorded process or in the image it exec'd. Block
	 * ids start again from 0. */
	HSREC_HELLO = 1,
	/* u32 id, u32 ninsn, u32 nexit; ninsn x {u64 addr, u8 len};
	 * nexit x {u32 insn index, u64 dst}; then the instructions' bytes,
	 * one after the other. A side exit taken at insn index i ran
	 * instructions 0..i and continues at dst, unless dst is the address
	 * of instruction i itself: then 0..i-1 ran and i runs again (a fault,
	 * a rep iteration). */
	HSREC_BLOCK = 2,
	/* u32 tid: this thread runs the superblocks that follow. */
	HSREC_SWITCH = 3,
	/* u32 tid, u64 ip[, u32 between]: the thread stopped running client
	 * code and will resume at ip. between (1): it stopped between two
	 * superblocks (a switch), so the one it entered last ran whole, but
	 * for a syscall at ip to make again; without it (0, or an older
	 * tool's 12 bytes) it may have stopped inside it (the end, after a
	 * fault): that ran up to its last instruction at ip; 2 + N (a
	 * rebuild's HSREC_HERE): inside it, before its instruction N, at
	 * ip. */
	HSREC_PAUSE = 4,
	/* u32 tid, i32 signo, u64 ip: a signal is delivered to the thread,
	 * which was interrupted before the instruction at ip. */
	HSREC_SIGNAL = 5,
	/* u64 start, u64 len, u64 offset, u32 prot (1 r, 2 w, 4 x), then
	 * the file's path, or "[vdso]", or nothing for anonymous memory:
	 * memory mapped (or its protection changed). */
	HSREC_MAP = 6,
	/* u64 start, u64 len: memory unmapped. */
	HSREC_UNMAP = 7,
	/* u32 tid, u64 ip: the thread ended, its last instruction before ip. */
	HSREC_THREAD_EXIT = 8,
	/* u32 exit code: the process ends (every thread still running was
	 * paused first). */
	HSREC_END = 9,
	/* u32 syscall number, u32 tid: a syscall starts (only those that
	 * change the address space or the process: exec, fork). */
	HSREC_SYSCALL = 10,
	/* u32 tid, HSREC_NGP x u64 (struct user_regs_struct): every general
	 * register, when the thread starts running client code after
	 * something outside its instructions changed them (its start, a
	 * syscall, a signal delivered, an exec). */
	HSREC_DUMP = 11,
	/* u32 tid, u64 addr, then old and new bytes (half the rest each):
	 * memory the kernel or Valgrind wrote for the thread (a syscall's
	 * output, a signal frame). */
	HSREC_MEMW = 12,
	/* u32 tid, u64 addr, u64 len, u32 how (0 contents unknown, 1 zeros,
	 * 2 unmapped, 3 written unseen by the kernel): memory changed other
	 * than by a write the stream has. */
	HSREC_MEMU = 13,
	/* u32 tid, u32 how (HSREC_DIV_*), u64 ip, then a text: the rebuild
	 * (below) found the program doing something other than what it did
	 * when recorded (an event, a syscall, a register differs), or could
	 * not go on; the thread stands before ip, and the stream ends. */
	HSREC_DIVERGED = 14,
	/* u64 count, u64 ip (or no payload, from an older tool): the
	 * rebuild came to where a debugger stopped the recorded run
	 * (HSIN_HERE: the live run's superblock count and the stopped
	 * thread's ip), every thread paused where it stands (HSREC_PAUSE
	 * before): the stream ends there, the program still running; or
	 * (--hsrec-follow) goes on from there as the log grows, the paused
	 * thread inside its superblock if its PAUSE said so. */
	HSREC_HERE = 15,
	/* u32 tid: the thread a PAUSE stopped inside its superblock (2 + N)
	 * goes on there: the rebuild stopped it only to write what a
	 * debugger wrote into the recorded run at that instruction (an
	 * HSIN_POKE: the MEMW between). */
	HSREC_GOON = 16,
	/* u64 ip: the rebuild came to where the recorded run ended between
	 * two superblocks (its log's HSIN_END met at a block's entry, no
	 * syscall or fault ending it: a signal from outside killed it, if the
	 * run's wait status says a signal that is no fault's); the running
	 * thread stands before the superblock at ip, every thread paused
	 * (HSREC_PAUSE before). The stream ends there. */
	HSREC_KILLED = 17,
};

/*
 * The input log: what the tool writes in its light mode
 * (--hsrec-mode=light), and reads back in its rebuild mode
 * (--hsrec-mode=rebuild --hsrec-in=PATH) while it writes the stream
 * above. Only what the program could not compute again is in it; the
 * rebuild runs the program again under the same tool, completing its
 * syscalls and nondeterministic instructions from the log, and checks at
 * every event that it is where the recording was.
 *
 * Records: u32 kind, u32 payload length, then the payload; packed,
 * little-endian. An event's check fields are the thread's pc (after the
 * instruction), its stack pointer and hsin_hash of its general registers.
 */
#define HSIN_VERSION 9            /* 9: HSIN_LOAD; 8: HSIN_ARGS; 7: HSIN_READS; 6: HSIN_HERE_INSIDE; 5: HSIN_TICK;
				   * 4: HSIN_POKE, HSIN_HERE's flags; 3: HSIN_CPU;
				   * 2: HSIN_TURN; 1 to 6 are read too */
#define HSIN_HEAD 8

/* HSREC_DIVERGED: how much of the superblock entered last ran. */
enum hsrec_div {
	HSREC_DIV_FIND = 0,        /* up to its last instruction at ip, as PAUSE */
	HSREC_DIV_WHOLE = 1,       /* all of it (stopped at the next one's entry) */
	HSREC_DIV_BUT_LAST = 2,    /* all but its last instruction (a syscall) */
};

enum hsin_kind {
	/* u32 version, u32 pid, u64 size, u64 mtime, u64 mtime_nsec (the
	 * executable's: the rebuild refuses another), then its path: a
	 * process image starts (the first, and each exec). */
	HSIN_HELLO = 1,
	/* u64 address, then bytes: the stack Valgrind built for the image
	 * (argv, envp, auxv: AT_RANDOM's bytes differ every run). */
	HSIN_STACK = 2,
	/* u32 tid, u64 address, then bytes: what the kernel wrote during
	 * the next HSIN_SYSCALL of that thread. */
	HSIN_MEMW = 3,
	/* u32 tid, u32 nr, 6 x u64 args, i64 result (-errno), u64 pc,
	 * u64 sp, u64 hash, u64 count (as the syscall started): a syscall
	 * done. */
	HSIN_SYSCALL = 4,
	/* u32 tid, u32 which (HSIN_INSN_*), u64 pc, u64 count, 3 x u64 results (rax,
	 * rdx, rcx; rdrand/rdseed: the helper's return value first): an
	 * instruction whose result is not the same twice. */
	HSIN_INSN = 5,
	/* u32 tid, i32 signo, u64 pc, u64 count: a signal delivered before
	 * the instruction at pc; the writes of its frame follow as
	 * HSIN_MEMW (the siginfo its sender wrote). */
	HSIN_SIGNAL = 6,
	/* u32 tid, u32 nr, u64 pc: an exec starts (then HSIN_HELLO, or the
	 * failed call's HSIN_SYSCALL). */
	HSIN_EXEC = 7,
	/* u32 fd, u64 dev, u64 ino, i64 size, u64 mtime, u64 mtime_nsec,
	 * then the path: the syscall just logged opened a regular file as
	 * fd; the rebuild opens the same file at the same number (a mapping
	 * of it reads the file), if it is still the same. */
	HSIN_FILE = 8,
	/* i32 exit code, u64 count: the process ends (count: the superblocks
	 * its last thread entered; a run killed from outside ends there). */
	HSIN_END = 9,
	/* u32 tid, u64 count: thread tid runs from here; the one that ran
	 * before stopped after count superblocks (all threads' together),
	 * at a block's end, in a syscall that waited, or as it ended. Logged
	 * before the first record of tid's turn. */
	HSIN_TURN = 10,
	/* u64 hwcaps: the CPU features VEX presents to the program
	 * (VexArchInfo.hwcaps). They alone make its CPUID and XGETBV
	 * answers (and how it decodes lzcnt and its kin), so the rebuild
	 * refuses other ones. After each HSIN_HELLO (version 3). */
	HSIN_CPU = 11,
	/* u32 tid, u64 count, u64 pc, u64 sp, u64 hash, u64 rax: a debugger
	 * stopped the light run here (serve --record valgrind: Valgrind's
	 * gdbserver stops at any instruction) and asked for the past: the
	 * thread stands before the instruction at pc, inside the superblock
	 * that makes the count (a stop between two superblocks: the next
	 * one, pc its first instruction). A rebuild whose log ends with one
	 * stops there, as the live run stands; one met before the end is
	 * passed over. Then (optional: 0 when absent) u32 flags:
	 * HSIN_HERE_SYSCALL, the thread stopped as it entered the syscall
	 * at pc (the one that ends the program: serve's stop before it), so
	 * its rcx and r11, which the syscall instruction had set already,
	 * are not in the hash; HSIN_HERE_INSIDE (version 6), the debugger
	 * stopped the run while every thread waited in a syscall, this one
	 * the last to enter its own: count is its syscall's superblock, pc
	 * past the syscall instruction, sp, hash (of hsin_hash, as its
	 * HSIN_SYSCALL's) and rax as it entered; the rebuild stops there,
	 * the syscall instruction run, the call not made. */
	HSIN_HERE = 12,
	/* HSIN_HERE's fields (all 48 bytes: the place, its check fields and
	 * flags), then u64 address, then bytes: there, a debugger wrote those
	 * bytes into the program's memory (serve --record valgrind: `set var`).
	 * The rebuild writes them at the same place, whether or not it stops
	 * there; it never passes one over. */
	HSIN_POKE = 13,
	/* u64 count: the light run has entered this many superblocks (all
	 * threads together), logged (and the log flushed) as a thread leaves
	 * client code at least HSIN_TICK_EVERY superblocks after the last
	 * one. No event: a rebuild passes it over, but one that trails the
	 * run as it goes (--hsrec-trail=W: `run`) goes no further than W
	 * superblocks short of the latest, so that the window of the run's
	 * last W superblocks, known only at HSIN_END, is still ahead of it
	 * (version 5). */
	HSIN_TICK = 14,
	/* u32 tid, u32 n, u32 more, u32 0, then n x (u64 address, u64 length,
	 * u64 hash): the program's memory the kernel read for the next
	 * HSIN_SYSCALL of that thread (a write's bytes, a path, a struct), as
	 * Valgrind's syscall wrappers name it, read as the syscall started,
	 * each range's bytes hashed (hsin_bytes_hash; 0: not readable). The
	 * first HSIN_READS_MAX ranges; @more: how many after them were not
	 * logged. Logged after the syscall's HSIN_MEMW, where there are any.
	 * The rebuild hashes the same ranges as the syscall starts: the
	 * program's outputs (what it writes to files, pipes and sockets, and
	 * every other argument in memory) are the recorded ones, or it stops
	 * there (version 7). */
	HSIN_READS = 15,
	/* u32 tid, u32 mask, then a u64 for each bit set: the argument
	 * registers (bit i: the syscall's argument i, rdi rsi rdx r10 r8 r9)
	 * that were not what the program passed when the next HSIN_SYSCALL of
	 * that thread, one the rebuild completes from the log, returned:
	 * Valgrind's wrapper put other values there (ppoll's and pselect6's
	 * mask, pointed at a copy in Valgrind's heap), which the program sees
	 * from then on. The rebuild sets them as it completes the syscall.
	 * Logged before it, with its HSIN_MEMW (version 8). */
	HSIN_ARGS = 16,
	/* u32 tid, u32 size (1 to 8), u64 address, then size bytes: the
	 * program read them from memory another process may write (a
	 * writable MAP_SHARED mapping, hsin_shared): a load, or the old value
	 * a lock cmpxchg compared, logged after it (a vector load as 8-byte
	 * parts). The rebuild, which maps such memory private and anonymous,
	 * writes them there before the same load (version 9). */
	HSIN_LOAD = 17,
};

#define HSIN_READS_MAX 16

#define HSIN_TICK_EVERY (1ull << 18)

#define HSIN_HERE_SYSCALL 1u
#define HSIN_HERE_INSIDE 2u

enum hsin_insn {
	HSIN_INSN_RDTSC = 0,
	HSIN_INSN_RDTSCP = 1,
	HSIN_INSN_RDRAND = 2,
	HSIN_INSN_RDSEED = 3,
};

/* `monitor hindsight.born` (serve --record valgrind): a thread a clone
 * made that has not run yet, its registers as bytes, little-endian: u64
 * rax rbx rcx rdx rsi rdi rbp rsp r8..r15 rip rflags fs_base at 0, its
 * x87 and SSE state as FXSAVE writes it at HSREC_BORN_FXSAVE (512
 * bytes), the upper halves of ymm0..15 at HSREC_BORN_YMMH. */
#define HSREC_BORN_FXSAVE 160
#define HSREC_BORN_YMMH (HSREC_BORN_FXSAVE + 512)
#define HSREC_BORN_BYTES (HSREC_BORN_YMMH + 256)

/* Syscalls that may wait for as long as they like (a sleep, a read from a
 * terminal or a socket, a lock): both recorders write out what they hold
 * before one, so a recorder killed during the wait loses nothing before
 * it. Names without the __NR_ / SYS_ prefix, X(name) each: every side
 * spells the numbers its own way. */
#define HSREC_MAY_WAIT_SYSCALLS(X) \
	X(nanosleep) X(clock_nanosleep) X(pause) X(select) X(pselect6) X(poll) X(ppoll) \
	X(epoll_wait) X(epoll_pwait) X(futex) X(wait4) X(waitid) X(rt_sigsuspend) \
	X(rt_sigtimedwait) X(read) X(readv) X(pread64) X(recvfrom) X(recvmsg) X(recvmmsg) \
	X(accept) X(accept4) X(connect) X(msgrcv) X(semop) X(semtimedop) X(io_getevents) \
	X(flock)

#endif
