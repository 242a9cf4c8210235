package dev.vertxrma;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules, checked on the compiled library and samples (ArchUnit): the implementation
 * packages form layers, bottom up — window memory; the transport; the datatype engine and the
 * trace; synchronization and point-to-point; collectives; the rank substrate and job bootstrap
 * ({@code runtime}); communicators; windows (built over a communicator); the job that hosts
 * ranks ({@code job}); the launcher on top ({@code launch}, behind {@code bin/rmarun}), a client
 * that nothing below it uses. Each package names what it may use, no package cycle exists, and
 * samples use the public API only, each kind of sample on its own. An arrow added against them
 * fails here.
 */
class PackageRulesTest {

  private static final String IMPL = "dev.vertxrma.impl.";
  private static final List<String> PACKAGES =
      List.of("memory", "transport", "ops", "observe", "sync", "p2p", "coll", "runtime", "comm", "win", "job", "launch");
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
  void pointToPointAndCollectivesUseNeitherCommunicatorsNorWindowsNorTheRuntime() {
    onlyUses("p2p", "memory", "ops", "observe", "transport"); // observe: the trace of messages sent and received
    onlyUses("coll", "memory", "ops", "p2p", "transport");
  }

  @Test
  void theRankSubstrateSitsBelowCommunicatorsAndWindows() {
    onlyUses("runtime", "memory", "transport", "observe", "coll");
  }

  @Test
  void communicatorsDoNotKnowWindows() {
    onlyUses("comm", "memory", "transport", "ops", "observe", "p2p", "coll", "runtime");
  }

  @Test
  void windowsAreBuiltOverCommunicatorsAndKnowNothingAbove() {
    onlyUses("win", "memory", "transport", "ops", "observe", "sync", "p2p", "coll", "runtime", "comm");
  }

  @Test
  void theJobThatHostsRanksSitsBelowTheLauncher() {
    onlyUses("job", "memory", "transport", "ops", "observe", "sync", "p2p", "coll", "runtime", "comm", "win");
  }

  @Test
  void nothingBelowTheLauncherUsesIt() {
    noClasses().that().resideInAnyPackage("dev.vertxrma", "dev.vertxrma.rx..", "dev.vertxrma.metrics..",
        "dev.vertxrma.samples..", IMPL + "memory..", IMPL + "transport..", IMPL + "ops..", IMPL + "observe..",
        IMPL + "sync..", IMPL + "coll..", IMPL + "p2p..", IMPL + "runtime..", IMPL + "comm..", IMPL + "win..",
        IMPL + "job..")
        .should().dependOnClassesThat().resideInAPackage(IMPL + "launch..")
        .because("the launcher (bin/rmarun, the JVMs it starts) is a client at the top: the API, the engine and the "
            + "runtime below it never call it; only the other clients (junit, bench) may")
        .check(classes);
  }

  @Test
  void theLauncherIsAClientOfTheApiTheJobAndTheRuntime() {
    // the rank hosts, the job bootstrap (cluster, startup progress), the job secret and TLS check, the trace's pages
    onlyUses("launch", "job", "runtime", "transport", "observe");
  }

  @Test
  void implementationPackagesFormNoCycle() {
    slices().matching("dev.vertxrma.impl.(*)..").should().beFreeOfCycles().check(classes);
  }

  /**
   * The API package reaches the implementation only through its entry points, as Vert.x does:
   * {@code Rma} (jobs, worlds, clustered Vert.x), {@code RankVerticle} (a launcher's job),
   * {@code Win} (window creation) and {@code Datatype} (its type map). Every other API type is an
   * interface or a value the implementation uses, never the other way round.
   */
  @Test
  void theApiReachesTheImplementationOnlyThroughItsEntryPoints() {
    noClasses().that().resideInAPackage("dev.vertxrma").and().doNotHaveSimpleName("Rma")
        .and().doNotHaveSimpleName("RankVerticle").and().doNotHaveSimpleName("Win")
        .and().doNotHaveSimpleName("Datatype").and().areNotNestedClasses()
        .should().dependOnClassesThat().resideInAPackage("dev.vertxrma.impl..")
        .because("the API names a few static entry points into the implementation, nothing else")
        .check(classes);
  }

  @Test
  void samplesUseThePublicApiOnly() {
    noClasses().that().resideInAPackage("dev.vertxrma.samples..").should().dependOnClassesThat()
        .resideInAPackage("dev.vertxrma.impl..").because("samples show what a user writes").check(classes);
  }

  /**
   * Each kind of sample stands alone: it uses what the samples share (package {@code samples}) but
   * no sample of another kind, except the style variants, which solve the standard examples'
   * problems and use their pieces ({@code HeatRod}).
   */
  @Test
  void samplesOfOneKindUseNoOtherKind() {
    List<String> kinds = List.of("standard", "sync", "styles", "services", "resilience", "stress");
    for (String kind : kinds) {
      List<String> others = new ArrayList<>();
      for (String other : kinds) {
        if (!other.equals(kind) && !(kind.equals("styles") && other.equals("standard"))) {
          others.add("dev.vertxrma.samples." + other + "..");
        }
      }
      noClasses().that().resideInAPackage("dev.vertxrma.samples." + kind + "..").should().dependOnClassesThat()
          .resideInAnyPackage(others.toArray(new String[0])).because("a kind of sample is read on its own")
          .check(classes);
    }
    noClasses().that().resideInAPackage("dev.vertxrma.samples").should().dependOnClassesThat()
        .resideInAPackage("dev.vertxrma.samples.*..").because("the shared pieces serve every kind").check(classes);
  }
}
