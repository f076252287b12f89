// The spawn helper in Perl: the same job as spawner.ts (start task processes
// for a large process, relay their output and exit), in a process a tenth of
// a Node runtime's size. A task's spawn is a fork of this process, so it
// copies a few hundred KiB of page tables instead of a bare Node runtime's
// 45 MiB, and relaying costs no JavaScript: about 1 ms of CPU less per task
// process (bench/RESULTS.md). Perl is part of every Debian and Ubuntu base
// system (perl-base is Essential) and of the shipped images; where there is
// none, SpawnHelper falls back to spawner.ts.
//
// The child is set up as libuv sets up a detached spawn: a new session (its
// own process group), stdin from /dev/null, stdout and stderr on pipes,
// signals back to their defaults and none blocked, the working directory,
// then the group and user (supplementary groups dropped) and the exact
// environment, then exec. A failure before or at exec comes back as its errno
// over a close-on-exec pipe, so the spawn either reports the pid of the
// running command or an error code, as Node's spawn does.
//
// Frames both ways: a 4-byte big-endian length, then one type byte and
// NUL-separated fields (Perl sets close-on-exec on every descriptor above 2
// that it opens, so no task inherits another's pipes or the control pipes).
//   to the helper    S id file argv0 cwd uid gid nargs args... env(k=v)...
//                    P id paused(0|1)
//   from the helper  p id pid | e id errno | d id stream(0|1) bytes |
//                    x id status (exited, output still open) | D id status (exited and output ended)
// A status is the raw wait status. The helper exits when its stdin ends (the
// parent went away), killing the process groups of the tasks still running.

export const PERL_SPAWNER = String.raw`
use strict;
use warnings;
use POSIX ();

binmode STDIN; binmode STDOUT;
my (%task, %by_pid, %by_fd);
my $in = '';
my $NO_SIGNALS = POSIX::SigSet->new();

sub out {
  my $frame = pack('N', length $_[0]) . $_[0];
  while (length $frame) {
    my $n = syswrite(STDOUT, $frame);
    if (!defined $n) { next if $!{EINTR} || $!{EAGAIN}; exit 0; }
    substr($frame, 0, $n) = '';
  }
}

sub finish {
  my ($id) = @_;
  my $t = $task{$id};
  return unless $t->{open} == 0 && defined $t->{status};
  out("D$id\0$t->{status}");
  delete $task{$id};
}

sub reap {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $status = $?;
    my $id = delete $by_pid{$pid};
    next unless defined $id;
    my $t = $task{$id};
    $t->{status} = $status;
    if ($t->{open} > 0) { out("x$id\0$status"); } else { finish($id); }
  }
}

sub start {
  my ($id, $file, $argv0, $cwd, $uid, $gid, $nargs, @rest) = @_;
  my @args = splice(@rest, 0, $nargs);
  my ($or, $ow, $er, $ew, $xr, $xw);
  unless (pipe($or, $ow) && pipe($er, $ew) && pipe($xr, $xw)) { out("e$id\0" . ($! + 0)); return; }
  # The task's environment is this process's own from here on: exec takes it as it is. Set here, before the
  # fork, the child writes almost nothing before its exec, and every page it writes is one copied.
  %ENV = ();
  for my $kv (@rest) { my $i = index($kv, '='); $ENV{substr($kv, 0, $i)} = substr($kv, $i + 1); }
  # Each step that fails sends its errno (EPERM when an identity change did not take).
  my $fail = sub { syswrite($xw, pack('N', ($! + 0) || $_[0] || 1)); POSIX::_exit(127); };
  my $pid = fork();
  if (!defined $pid) { out("e$id\0" . ($! + 0)); return; }
  if ($pid == 0) {
    # SIGCHLD's handler is reset by exec; an ignored SIGPIPE would not be.
    $SIG{PIPE} = 'DEFAULT';
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), $NO_SIGNALS) or $fail->();
    defined POSIX::setsid() or $fail->();
    open(STDIN, '<', '/dev/null') or $fail->();
    defined POSIX::dup2(fileno($ow), 1) or $fail->();
    defined POSIX::dup2(fileno($ew), 2) or $fail->();
    chdir($cwd) or $fail->();
    if ($uid ne '') {
      $) = "$gid $gid";
      $fail->(POSIX::EPERM()) if $) ne "$gid $gid";
      POSIX::setgid($gid) or $fail->();
      POSIX::setuid($uid) or $fail->();
      $! = 0;
      $fail->(POSIX::EPERM()) if $< != $uid || $> != $uid || $( + 0 != $gid;
    }
    { no warnings 'exec'; exec { $file } $argv0, @args; }
    $fail->();
  }
  close $ow; close $ew; close $xw;
  my $got = '';
  while (1) {
    my $n = sysread($xr, $got, 4 - length $got, length $got);
    last if defined $n && ($n == 0 || length $got == 4);
    last if !defined $n && !$!{EINTR};
  }
  close $xr;
  if (length $got == 4) {
    waitpid($pid, 0);
    close $or; close $er;
    out("e$id\0" . unpack('N', $got));
    return;
  }
  $task{$id} = { pid => $pid, open => 2, paused => 0, fh => [$or, $er] };
  $by_pid{$pid} = $id;
  $by_fd{fileno $or} = [$id, 0];
  $by_fd{fileno $er} = [$id, 1];
  out("p$id\0$pid");
}

sub quit {
  for my $t (values %task) { kill('KILL', -$t->{pid}) if !defined $t->{status}; }
  exit 0;
}

$SIG{PIPE} = 'IGNORE';
# SIGCHLD writes a byte to a pipe that select() watches (the self-pipe): an exit wakes the loop
# whenever it lands, before select() or during it, and reap() runs at the top of every turn.
pipe(my $chld_r, my $chld_w) or die "pipe: $!";
for my $fh ($chld_r, $chld_w) {
  my $flags = fcntl($fh, POSIX::F_GETFL(), 0) or die "fcntl: $!";
  fcntl($fh, POSIX::F_SETFL(), $flags | POSIX::O_NONBLOCK()) or die "fcntl: $!";
}
$SIG{CHLD} = sub { syswrite($chld_w, 'c') };

while (1) {
  reap();
  my $rin = '';
  vec($rin, 0, 1) = 1;
  vec($rin, fileno $chld_r, 1) = 1;
  my $running = 0;
  for my $t (values %task) {
    $running = 1 if !defined $t->{status};
    next if $t->{paused};
    for my $fh (@{$t->{fh}}) { vec($rin, fileno $fh, 1) = 1 if defined $fh; }
  }
  # The self-pipe wakes the loop for every exit; the timeout only bounds a wait should a wake-up ever be missed.
  my $n = select(my $rout = $rin, undef, undef, $running ? 1 : undef);
  next if $n <= 0;
  if (vec($rout, fileno $chld_r, 1)) { sysread($chld_r, my $drain, 4096); }
  if (vec($rout, 0, 1)) {
    my $r = sysread(STDIN, $in, 65536, length $in);
    if (defined $r && $r == 0) { quit(); }
    if (!defined $r && !$!{EINTR} && !$!{EAGAIN}) { quit(); }
    while (length $in >= 4) {
      my $len = unpack('N', $in);
      last if length $in < 4 + $len;
      my $msg = substr($in, 4, $len);
      substr($in, 0, 4 + $len) = '';
      my $type = substr($msg, 0, 1);
      my @f = split(/\0/, substr($msg, 1), -1);
      if ($type eq 'S') { start(@f); }
      elsif ($type eq 'P') { $task{$f[0]}{paused} = $f[1] if $task{$f[0]}; }
    }
  }
  # In descriptor order: a task's stdout (its lower descriptor) before its stderr when both have
  # output, as a task usually writes them (select() cannot tell which came first; epoll can).
  for my $fd (sort { $a <=> $b } keys %by_fd) {
    next unless vec($rout, $fd, 1);
    my ($id, $s) = @{$by_fd{$fd}};
    my $t = $task{$id};
    my $fh = $t->{fh}[$s];
    my $r = sysread($fh, my $buf, 65536);
    next if !defined $r && ($!{EINTR} || $!{EAGAIN});
    if ($r) { out("d$id\0$s\0$buf"); next; }
    close $fh;
    $t->{fh}[$s] = undef;
    delete $by_fd{$fd};
    $t->{open}--;
    finish($id);
  }
}
`;
