package dev.vertxrma;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules that hold today, checked on the compiled library and samples (ArchUnit):
 * which implementation packages each one may use, bottom up (window memory; the transport; the
 * datatype engine; the trace; synchronization; collectives and point-to-point), samples that
 * use the public API only, and the launcher ({@code impl.launch}, behind {@code bin/rmarun}) at the
 * top, a client of the API and of the runtime that nothing below it uses. An arrow added against
 * them fails here.
 *
 * <p>Not a rule yet, because it does not hold: {@code impl.win} uses {@code impl.runtime} (argument
 * checks, error handling, the rank's future and process) and {@code impl.runtime} uses
 * {@code impl.win}, a cycle that issue 28 takes apart; this test names the packages that may use
 * {@code impl.runtime} today so that no other starts to.
 */
class PackageRulesTest {

  private static final String IMPL = "dev.vertxrma.impl.";
  private static final List<String> PACKAGES =
      List.of("memory", "transport", "ops", "observe", "sync", "coll", "p2p", "win", "runtime", "launch");
  private static JavaClasses classes;

  @BeforeAll
  static void load() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.vertxrma");
  }

  /** Classes of {@code impl.pkg} use no implementation package but {@code allowed}. */
  private static void onlyUses(String pkg, String... allowed) {
    Set<String> ok = Set.of(allowed);
    List<String> banned = new ArrayList<>();
    for (String p : PACKAGES) {
      if (!p.equals(pkg) && !ok.contains(p)) {
        banned.add(IMPL + p + "..");
      }
    }
    noClasses().that().resideInAPackage(IMPL + pkg + "..").should().dependOnClassesThat()
        .resideInAnyPackage(banned.toArray(String[]::new))
        .because("impl." + pkg + " sits below them (uses only " + (allowed.length == 0 ? "no other impl package"
            : String.join(", ", allowed)) + ")")
        .check(classes);
  }

  @Test
  void windowMemoryUsesNoOtherImplementationPackage() {
    onlyUses("memory");
  }

  @Test
  void theTransportUsesOnlyMemory() {
    onlyUses("transport", "memory");
  }

  @Test
  void theDatatypeEngineUsesOnlyMemoryAndTransport() {
    onlyUses("ops", "memory", "transport");
  }

  @Test
  void theTraceUsesOnlyTheTransport() {
    onlyUses("observe", "transport");
  }

  @Test
  void synchronizationUsesOnlyTheTraceAndTheTransport() {
    onlyUses("sync", "observe", "transport");
  }

  @Test
  void collectivesAndPointToPointUseNeitherWindowsNorTheRuntime() {
    onlyUses("coll", "memory", "ops", "p2p", "transport");
    onlyUses("p2p", "memory", "ops", "transport");
  }

  @Test
  void onlyWindowsReachUpIntoTheRuntime() {
    noClasses().that().resideInAnyPackage(IMPL + "memory..", IMPL + "transport..", IMPL + "ops..", IMPL + "observe..",
        IMPL + "sync..", IMPL + "coll..", IMPL + "p2p..").should().dependOnClassesThat()
        .resideInAPackage(IMPL + "runtime..").because("the runtime sits above them").check(classes);
  }

  @Test
  void nothingBelowTheLauncherUsesIt() {
    noClasses().that().resideInAnyPackage("dev.vertxrma", "dev.vertxrma.rx..", "dev.vertxrma.metrics..",
        "dev.vertxrma.samples..", IMPL + "memory..", IMPL + "transport..", IMPL + "ops..", IMPL + "observe..",
        IMPL + "sync..", IMPL + "coll..", IMPL + "p2p..", IMPL + "win..", IMPL + "runtime..")
        .should().dependOnClassesThat().resideInAPackage(IMPL + "launch..")
        .because("the launcher (bin/rmarun, the JVMs it starts) is a client at the top: the API, the engine and the "
            + "runtime below it never call it; only the other clients (junit, bench) may")
        .check(classes);
  }

  @Test
  void theLauncherIsAClientOfTheApiAndTheRuntime() {
    // the job bootstrap (cluster, startup progress, rank hosts), the job secret and TLS check, the trace's pages
    onlyUses("launch", "runtime", "transport", "observe");
  }

  @Test
  void samplesUseThePublicApiOnly() {
    noClasses().that().resideInAPackage("dev.vertxrma.samples..").should().dependOnClassesThat()
        .resideInAPackage("dev.vertxrma.impl..").because("samples show what a user writes").check(classes);
  }
}
