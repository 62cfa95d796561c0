#!/usr/bin/perl
# End-to-end tests of isograph-record --ldbc (the LDBC SNB ACID tests)
# against a real PostgreSQL server.
#
# The server comes from the libpq environment (PGHOST, PGPORT, PGUSER); the
# isograph extension must be installed on it.  The tests create their own
# databases isograph_ldbc_store (with the extension) and isograph_ldbc_target.
# They check: the command line; --ldbc-schedule, where every verdict is
# deterministic and the anomaly is forced wherever the level lets it
# through (the expected table below is PostgreSQL 15's documented
# behaviour); a broken guarantee (every transaction at READ COMMITTED while
# the verdicts are judged for SERIALIZABLE) failing the run; and the
# concurrent clients at READ COMMITTED and SERIALIZABLE, asserting only
# what PostgreSQL guarantees.  Emits TAP; exit status non-zero on failure.
#
# Run: make -C client check   (or ISOGRAPH_RECORD=path perl test/client/ldbc.t)
use strict;
use warnings;
use FindBin;
use IPC::Run qw(run timeout);
use Test::More;

my $root = "$FindBin::Bin/../..";
my $rec  = $ENV{ISOGRAPH_RECORD} // "$root/client/isograph-record";
my $STORE  = 'isograph_ldbc_store';
my $TARGET = 'isograph_ldbc_target';

sub psql {
	my ($db, $sql) = @_;
	my ($out, $err);
	my $ok = run(['psql', '-X', '-q', '-A', '-t', '-F', '|', '-v', 'ON_ERROR_STOP=1',
				'-d', $db, '-c', $sql], '<', \undef, '>', \$out, '2>', \$err, timeout(120));
	die "psql failed on $db: $sql\n$err" unless $ok;
	$out =~ s/\s+\z//;
	return $out;
}

# Run isograph-record; returns (exit status, stdout, stderr).
sub record {
	my ($env, @args) = ref $_[0] eq 'HASH' ? @_ : ({}, @_);
	my ($out, $err) = ('', '');
	local %ENV = (%ENV, %$env);
	run([$rec, @args], '<', \undef, '>', \$out, '2>', \$err, timeout(180));
	return ($? >> 8, $out, $err);
}

# The table: "TEST LEVEL" => {ldbc, iso, anomalies (name => count), id, note}
sub table {
	my ($out) = @_;
	my %t;
	for (split /\n/, $out) {
		next unless /^(\S+)\s+(RC|RR|SER)\s+(pass|FAIL)\s+(pass|FAIL)\s+
					 (-|[\w.-]+\ \d+(?:,\ [\w.-]+\ \d+)*)\s+(\d+)\s+(.*)$/x;
		my %a = $5 eq '-' ? () : map { split / / } split /, /, $5;
		$t{"$1 $2"} = {ldbc => $3, iso => $4, anomalies => \%a, id => $6, note => $7};
	}
	return \%t;
}

-x $rec or BAIL_OUT("$rec is not built (make -C client)");
for my $db ($STORE, $TARGET) {
	psql('postgres', "DROP DATABASE IF EXISTS $db WITH (FORCE)");
	psql('postgres', "CREATE DATABASE $db");
}
psql($STORE, 'CREATE EXTENSION isograph');
my @conn = ('--target', "dbname=$TARGET", '--store', "dbname=$STORE");
my @tests = qw(G0 G1a G1b G1c IMP PMP OTV FR LU WS);

# ---------------------------------------------------------------- CLI
{
	my ($rc, $out) = record('--help');
	is($rc, 0, '--help exits 0');
	like($out, qr/--ldbc TEST.*g0, g1a, g1b, g1c, imp, pmp,\s+otv, fr, lu, ws/s,
		'--help documents --ldbc and its tests');
	like($out, qr/--ldbc-sleep MS/, '--help documents --ldbc-sleep');
	like($out, qr/--ldbc-schedule/, '--help documents --ldbc-schedule');
	my $err;
	($rc, undef, $err) = record('--ldbc', 'g2');
	is($rc, 2, 'unknown LDBC test: exit 2');
	like($err, qr/invalid value "g2" for --ldbc/, 'unknown LDBC test: clear message');
	($rc, undef, $err) = record('--isolation', 'all');
	is($rc, 2, '--isolation all without --ldbc: exit 2');
	like($err, qr/needs --ldbc/, '--isolation all without --ldbc: clear message');
	($rc, undef, $err) = record('--ldbc-schedule');
	is($rc, 2, '--ldbc-schedule without --ldbc: exit 2');
	($rc, undef, $err) = record('--ldbc', 'all', '--edn', '/dev/null');
	is($rc, 2, '--ldbc with --edn: exit 2');
	($rc, undef, $err) = record('--ldbc', 'ws', '--ldbc-sleep', '-1');
	is($rc, 2, 'bad --ldbc-sleep: exit 2');
	($rc, undef, $err) = record('--target', "dbname=$TARGET", '--ldbc', 'g0');
	is($rc, 1, '--ldbc with a store without the extension: exit 1');
	like($err, qr/no isograph extension/, '... with a clear message');
}

# ---------------------------------------------------------------- forced anomalies
# --ldbc-schedule: test => [RC, RR, SER], each "LDBC isograph anomalies"
# (anomalies: isograph's, at ser, '-' for none).  PostgreSQL 15: READ
# COMMITTED lets the non-repeatable read (IMP), the phantom (PMP), the
# fractured read (FR), the read-then-write lost update (LU) and write skew
# (WS) through; REPEATABLE READ only write skew; SERIALIZABLE none.  G1c's
# interleaving is a write skew (each reads the other's row before the other
# commits): no G1c, but isograph's G2-item below SERIALIZABLE.  OTV passes
# everywhere; at RC isograph sees the newer versions the reader read as a
# non-repeatable read (explained in the note).
my %expect = (
	G0  => ['pass pass -',            'pass pass -',            'pass pass -'],
	G1a => ['pass pass -',            'pass pass -',            'pass pass -'],
	G1b => ['pass pass -',            'pass pass -',            'pass pass -'],
	G1c => ['pass pass G2-item',      'pass pass G2-item',      'pass pass -'],
	IMP => ['FAIL FAIL internal',     'pass pass -',            'pass pass -'],
	PMP => ['FAIL FAIL internal',     'pass pass -',            'pass pass -'],
	OTV => ['pass FAIL internal',     'pass pass -',            'pass pass -'],
	FR  => ['FAIL FAIL internal',     'pass pass -',            'pass pass -'],
	LU  => ['FAIL FAIL lost-update',  'pass pass -',            'pass pass -'],
	WS  => ['FAIL FAIL G2-item',      'FAIL FAIL G2-item',      'pass pass -'],
);
{
	my ($rc, $out, $err) = record(@conn, '--ldbc', 'all', '--ldbc-schedule', '--isolation', 'all',
		'--name', 'forced', '--quiet');
	is($rc, 0, '--ldbc all --ldbc-schedule: exit 0 (no violation, every disagreement explained)')
		or diag($out, $err);
	my $t = table($out);
	is(scalar(keys %$t), 30, 'the table has 10 tests x 3 levels') or diag($out);
	for my $test (@tests) {
		my @lv = qw(RC RR SER);
		for my $i (0 .. 2) {
			my $row = $t->{"$test $lv[$i]"} or do { fail("$test $lv[$i]: no row"); next };
			my ($l, $iso, $anom) = split / /, $expect{$test}[$i];
			is("$row->{ldbc} $row->{iso}", "$l $iso", "$test at $lv[$i]: LDBC $l, isograph $iso");
			if ($anom eq '-') {
				is(join(',', sort keys %{$row->{anomalies}}), '',
					"$test at $lv[$i]: isograph finds no anomaly");
			} else {
				ok($row->{anomalies}{$anom}, "$test at $lv[$i]: isograph finds $anom")
					or diag(explain($row->{anomalies}));
			}
		}
	}
	like($t->{'OTV RC'}{note}, qr/explained:/, 'OTV at RC: the disagreement is explained');
	like($t->{'LU RC'}{note}, qr/numFriends 1, 2 knows edges/,
		'LU at RC: two committed writers, numFriends 1 (the lost update)');
	is(psql($STORE, "SELECT count(*) FROM iso_history WHERE name LIKE 'forced %'"), 30,
		'one stored history per test and level');
	is(psql($STORE, "SELECT workload FROM iso_history WHERE name = 'forced G0 RC'"), 'list-append',
		'G0 is stored as a list-append history');
	is(psql($STORE, "SELECT workload || ' ' || (metadata->>'ldbc') || ' ' || (metadata->>'ldbc_pass') "
			. "FROM iso_history WHERE name = 'forced WS RR'"), 'rw-register WS false',
		'the metadata names the test and its verdict');
	is(psql($TARGET, "SELECT count(*) FROM pg_namespace WHERE nspname = 'isograph_ldbc'"), 0,
		'the schema isograph_ldbc is dropped at the end');
	# the stored history agrees with the table
	my $id = $t->{'WS RC'}{id};
	is(psql($STORE, "SELECT holds FROM iso_levels($id) WHERE level = 'si'"), 't',
		'WS at RC: write skew is snapshot isolation');
	($rc, $out) = record(@conn, '--ldbc', 'all', '--ldbc-schedule', '--isolation', 'all',
		'--name', 'forced', '--quiet');
	is($rc, 1, 'the same --name again: exit 1 (names are unique)');
}

# ---------------------------------------------------------------- a broken guarantee
# Every transaction at READ COMMITTED, judged as SERIALIZABLE: IMP's
# non-repeatable read must make the run fail.
{
	my ($rc, $out, $err) = record({ISOGRAPH_RECORD_TEST_BEGIN => 'BEGIN ISOLATION LEVEL READ COMMITTED'},
		@conn, '--ldbc', 'imp', '--ldbc-schedule', '--isolation', 'ser', '--name', 'weakened', '--quiet');
	is($rc, 3, 'a SERIALIZABLE that lets IMP through: exit 3');
	my $row = table($out)->{'IMP SER'};
	ok($row && $row->{ldbc} eq 'FAIL' && $row->{iso} eq 'FAIL', 'both checks see it');
	like($row ? $row->{note} : '', qr/VIOLATION/, 'the row says VIOLATION');
	like($out, qr/1 violations or unexplained disagreements/, 'the summary counts it');
	($rc, $out) = record({ISOGRAPH_RECORD_TEST_BEGIN => 'BEGIN ISOLATION LEVEL READ COMMITTED'},
		@conn, '--ldbc', 'ws', '--ldbc-schedule', '--isolation', 'rr', '--name', 'weakened ws',
		'--quiet');
	is($rc, 0, 'a write skew at REPEATABLE READ is no violation (PostgreSQL allows it): exit 0');
}

# ---------------------------------------------------------------- concurrent clients
# What PostgreSQL guarantees at each level (the other tests may fail or not):
my %must = (
	RC  => {map { $_ => 1 } qw(G0 G1a G1b G1c OTV LU)},
	SER => {map { $_ => 1 } @tests},
);
for my $lv (qw(RC SER)) {
	my $iso = lc $lv;
	my ($rc, $out, $err) = record(@conn, '--ldbc', 'all', '--isolation', $iso,
		'--ldbc-sleep', '10', '--name', "concurrent $lv", '--quiet');
	is($rc, 0, "concurrent clients at $lv: exit 0") or diag($out, $err);
	my $t = table($out);
	is(scalar(keys %$t), 10, "concurrent clients at $lv: 10 rows") or diag($out);
	for my $test (@tests) {
		my $row = $t->{"$test $lv"} or next;
		if ($must{$lv}{$test}) {
			is($row->{ldbc}, 'pass', "concurrent $test at $lv: LDBC passes (guaranteed)");
			# SER: isograph may see the SSI commit race's G2-item (documented);
			# RC: OTV's newer reads look like a non-repeatable read (explained)
			ok($row->{iso} eq 'pass' || $row->{note} =~ /SSI commit race|explained:/,
				"concurrent $test at $lv: isograph passes (guaranteed)") or diag($row->{note});
		}
		ok($row->{ldbc} eq $row->{iso} || $row->{note} =~ /explained:/,
			"concurrent $test at $lv: the verdicts agree, or the note explains why")
			or diag("$row->{ldbc} $row->{iso} $row->{note}");
	}
}

done_testing();
