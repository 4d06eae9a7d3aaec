# harness.sh -- the shared helpers of the shell tests, sourced by every
# tests/*.sh script ('. tests/harness.sh' from the build directory, or
# '. "$(dirname "$0")/harness.sh"'):
#   COSA            the command under test (default analysis/cosa)
#   tmp             a scratch directory, removed at exit (trap on EXIT)
#   ok, bad MSG     count a passed / failed check (bad prints "FAIL: MSG")
#   check MSG CMD.. ok if CMD succeeds, else bad MSG
#   expect_exit CODE CMD...
#                   CMD exits CODE; a failure (CODE != 0) prints exactly one
#                   stderr line 'cosa: ...' and nothing on stdout; the
#                   outputs stay in $tmp/out and $tmp/err
#   fmu_pair NAME TEND I FMU_I FMU_II [S V [FK]]
#                   (stdout) the model file "model NAME" (horizon TEND) of
#                   the units I (FMU file FMU_I, path as given) and II
#                   (FMU_II) on I.S -> II.s1, I.V -> II.v1 (S, V: s1, v1
#                   unless given) and II.Fk -> I.Fk, followed by FK if given
#                   (e.g. '* 3')
#   ssd_connectors INDENT TYPE NAME:KIND[:ATTRS]...
#                   (stdout) an SSD's <ssd:Connectors> block, each line
#                   indented by INDENT: one <ssd:Connector> a NAME, its
#                   type <ssc:TYPE ATTRS/> (e.g. TYPE Real, ATTRS unit="m")
#   simulate_run NAME MODEL ARGS...
#                   cosa simulate --model-file $tmp/MODEL.cosa --dt 1e-4 ARGS
#                   into $tmp/NAME/r.csv (stdout $tmp/NAME.out, stderr
#                   $tmp/NAME.err); a failure is bad "NAME: exit RC: ..."
#   ssd_head NAME [VERSION]
#                   (stdout) an SSD's XML declaration, its opening
#                   <ssd:SystemStructureDescription $NS version="VERSION"
#                   name="NAME"> (NS: the namespaces, set by the script;
#                   VERSION 2.0 unless given) and <ssd:System name="top">
#   ssd_tail STOP [START]
#                   (stdout) the lines that close what ssd_head opened, with
#                   <ssd:DefaultExperiment startTime="START" stopTime="STOP"/>
#                   (no startTime without START)
#   ssd_links INDENT FROM.CONN>TO.CONN...
#                   (stdout) one <ssd:Connection> line a link, indented by
#                   INDENT ('.CONN' with no element: the system's connector)
#   ssd_param INDENT SET NAME TYPE VALUE [VERSION [PREFIX]]
#                   (stdout) an <ssd:ParameterBinding> (prefix="PREFIX" if
#                   given), indented by INDENT, binding the one parameter NAME
#                   of the inline ssv:ParameterSet SET (version VERSION, 2.0
#                   unless given) to <ssv:TYPE value="VALUE"/>
#   ssd_binding INDENT SET NAME TYPE VALUE
#                   (stdout) that ssd_param (version 2.0) in its own
#                   <ssd:ParameterBindings> block
#   model_sub NAME STATES INPUTS OUTPUTS [MATRIX=VALUE]...
#                   the model-file block "subsystem NAME" .. "end" (stdout):
#                   the names as given (quoted lists, '' for none), then a
#                   line "  MATRIX = [ VALUE ]" for each argument, in order
#   usage_error [-x] WANT ARGS...
#                   cosa ARGS exits 2 as expect_exit says, and its line
#                   holds WANT (-x: is WANT)
#   fails_with CODE PATTERN MSG CMD...
#                   CMD exits CODE, prints nothing on stdout and exactly
#                   one stderr line, matching the grep PATTERN; else
#                   bad "MSG: exit RC, STDERR" (outputs in $tmp/out, $tmp/err)
#   wait_until TRIES PAUSE CMD...
#                   run CMD until it succeeds, at most TRIES + 1 times,
#                   sleeping PAUSE seconds between the tries
#   harness_done NAME
#                   "NAME: N passed, M failed" and the exit status
#   fmu_twomass FILE NAME TEND I II
#                   the model file "model NAME" (horizon TEND) of the
#                   two-mass network of the FMU files I and II in $FMU;
#                   FILE - writes it to stdout
#   osp_twomass FILE BASE END ALGORITHM II_SOURCE [I_ATTRS [II_ATTRS [II_CK]]]
#                   the OSP system structure of the two-mass pair (I from
#                   twomass1_fmi2.fmu, II from II_SOURCE) at BaseStepSize
#                   BASE up to EndTime END, with libcosim's ECCO settings;
#                   I_ATTRS/II_ATTRS are extra Simulator attributes (e.g.
#                   'stepSize="0.002"'), II_CK an initial value of II's ck
COSA=${COSA:-analysis/cosa}
FMU=${FMU:-${COSA_FMUDIR:-tests/fmu}}
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cosa_test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

check() {
    msg=$1
    shift
    if "$@"; then ok; else bad "$msg"; fi
}

expect_exit() {
    want=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" != "$want" ]; then
        bad "'$*' exited $got, expected $want: $(head -c 300 "$tmp/err")"
        return 1
    fi
    if [ "$want" != 0 ]; then
        if [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q '^cosa: ' "$tmp/err"; then
            bad "'$*' should print one 'cosa: ...' line on stderr, got: $(cat "$tmp/err")"
            return 1
        fi
        if [ -s "$tmp/out" ]; then
            bad "'$*' printed to stdout on error"
            return 1
        fi
    fi
    ok
}

fmu_twomass() {
    if [ "$1" = - ]; then
        shift
        fmu_twomass_text "$@"
    else
        harness_file=$1
        shift
        fmu_twomass_text "$@" >"$harness_file"
    fi
}
fmu_twomass_text() { # NAME TEND I II
    cat <<END
model $1
tend $2
fmu I = $FMU/$3
fmu II = $FMU/$4
connect I.s1 -> II.s1
connect I.v1 -> II.v1
connect II.Fk -> I.Fk
END
}

osp_twomass() {
    if [ -n "${8:-}" ]; then
        harness_ii="<Simulator name=\"II\" source=\"$5\" ${7:-}>
      <InitialValues><InitialValue variable=\"ck\"><Real value=\"$8\"/></InitialValue></InitialValues>
    </Simulator>"
    else
        harness_ii="<Simulator name=\"II\" source=\"$5\" ${7:-}/>"
    fi
    cat >"$1" <<END
<?xml version="1.0" encoding="UTF-8"?>
<OspSystemStructure xmlns="http://opensimulationplatform.com/MSMI/OSPSystemStructure" version="0.1">
  <BaseStepSize>$2</BaseStepSize>
  <EndTime>$3</EndTime>
  <Algorithm>$4</Algorithm>
  <Simulators>
    <Simulator name="I" source="twomass1_fmi2.fmu" ${6:-}/>
    $harness_ii
  </Simulators>
  <Connections>
    <VariableConnection><Variable simulator="II" name="s1"/><Variable simulator="I" name="s1"/></VariableConnection>
    <VariableConnection powerBond="b"><Variable simulator="I" name="v1" causality="output"/><Variable simulator="II" name="v1" causality="input"/></VariableConnection>
    <VariableConnection powerBond="b"><Variable simulator="I" name="Fk" causality="input"/><Variable simulator="II" name="Fk" causality="output"/></VariableConnection>
  </Connections>
  <EccoConfiguration>
    <SafetyFactor>0.99</SafetyFactor><StepSize>0.0001</StepSize>
    <MinimumStepSize>0.00001</MinimumStepSize><MaximumStepSize>0.01</MaximumStepSize>
    <MinimumChangeRate>0.2</MinimumChangeRate><MaximumChangeRate>1.5</MaximumChangeRate>
    <ProportionalGain>0.2</ProportionalGain><IntegralGain>0.15</IntegralGain>
    <RelativeTolerance>1e-3</RelativeTolerance><AbsoluteTolerance>100</AbsoluteTolerance>
  </EccoConfiguration>
</OspSystemStructure>
END
}

fmu_pair() {
    printf 'model %s\ntend %s\nfmu %s = %s\nfmu II = %s\n' "$1" "$2" "$3" "$4" "$5"
    printf 'connect %s.%s -> II.s1\nconnect %s.%s -> II.v1\n' "$3" "${6:-s1}" "$3" "${7:-v1}"
    printf 'connect II.Fk -> %s.Fk%s\n' "$3" "${8:+ $8}"
}

ssd_connectors() {
    harness_in=$1 harness_ty=$2
    shift 2
    echo "$harness_in<ssd:Connectors>"
    for harness_c; do
        harness_nm=${harness_c%%:*}
        harness_c=${harness_c#*:}
        harness_at=
        case $harness_c in *:*) harness_at=" ${harness_c#*:}" harness_c=${harness_c%%:*} ;; esac
        echo "$harness_in  <ssd:Connector name=\"$harness_nm\" kind=\"$harness_c\"><ssc:$harness_ty$harness_at/></ssd:Connector>"
    done
    echo "$harness_in</ssd:Connectors>"
}

simulate_run() {
    harness_rn=$1 harness_rf=$2
    shift 2
    rm -rf "${tmp:?}/$harness_rn"
    "$COSA" simulate --model-file "$tmp/$harness_rf.cosa" --dt 1e-4 -o "$tmp/$harness_rn" --name r "$@" \
        >"$tmp/$harness_rn.out" 2>"$tmp/$harness_rn.err" ||
        bad "$harness_rn: exit $?: $(grep -v note "$tmp/$harness_rn.err")"
}

ssd_head() {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<ssd:SystemStructureDescription $NS version=\"${2:-2.0}\" name=\"$1\">"
    echo '  <ssd:System name="top">'
}

ssd_tail() {
    echo '  </ssd:System>'
    echo "  <ssd:DefaultExperiment ${2:+startTime=\"$2\" }stopTime=\"$1\"/>"
    echo '</ssd:SystemStructureDescription>'
}

ssd_links() {
    harness_in=$1
    shift
    for harness_l; do
        harness_f=${harness_l%%>*} harness_t=${harness_l#*>}
        echo "$harness_in<ssd:Connection startElement=\"${harness_f%%.*}\" startConnector=\"${harness_f#*.}\" endElement=\"${harness_t%%.*}\" endConnector=\"${harness_t#*.}\"/>"
    done
}

ssd_param() {
    printf '%s<ssd:ParameterBinding%s>\n%s  <ssd:ParameterValues>\n' "$1" "${7:+ prefix=\"$7\"}" "$1"
    printf '%s    <ssv:ParameterSet version="%s" name="%s">\n%s      <ssv:Parameters>\n' "$1" "${6:-2.0}" "$2" "$1"
    printf '%s        <ssv:Parameter name="%s"><ssv:%s value="%s"/></ssv:Parameter>\n' "$1" "$3" "$4" "$5"
    printf '%s      </ssv:Parameters>\n%s    </ssv:ParameterSet>\n' "$1" "$1"
    printf '%s  </ssd:ParameterValues>\n%s</ssd:ParameterBinding>\n' "$1" "$1"
}

ssd_binding() {
    echo "$1<ssd:ParameterBindings>"
    ssd_param "$1  " "$2" "$3" "$4" "$5"
    echo "$1</ssd:ParameterBindings>"
}

model_sub() {
    printf 'subsystem %s\n  states%s\n  inputs%s\n  outputs%s\n' "$1" "${2:+ $2}" "${3:+ $3}" "${4:+ $4}"
    shift 4
    for harness_m; do
        printf '  %s = [ %s ]\n' "${harness_m%%=*}" "${harness_m#*=}"
    done
    echo end
}

usage_error() {
    harness_x=
    if [ "$1" = -x ]; then
        harness_x=x
        shift
    fi
    harness_want=$1
    shift
    expect_exit 2 "$COSA" "$@" || return 0
    grep -q${harness_x}F -- "$harness_want" "$tmp/err" && ok ||
        bad "want '$harness_want', got: $(cat "$tmp/err")"
}

fails_with() {
    harness_code=$1 harness_pat=$2 harness_msg=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    harness_rc=$?
    [ "$harness_rc" = "$harness_code" ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
        grep -q -- "$harness_pat" "$tmp/err" && ok ||
        bad "$harness_msg: exit $harness_rc, $(cat "$tmp/err")"
}

wait_until() {
    harness_n=0 harness_tries=$1 harness_pause=$2
    shift 2
    until "$@" || [ "$harness_n" -ge "$harness_tries" ]; do
        sleep "$harness_pause"
        harness_n=$((harness_n + 1))
    done
}

harness_done() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" = 0 ]
}
