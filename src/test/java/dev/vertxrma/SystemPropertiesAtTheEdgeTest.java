package dev.vertxrma;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Configuration is resolved once, at the edge (issue 28): the {@code rma.*} system properties are
 * read by {@code JvmDefaults}, where a new options object of the public API starts from them, and
 * by the launcher, which is a client of the API; the engine below takes every value from the
 * options it is handed. Checked on the compiled library (ArchUnit): no class of
 * {@code dev.vertxrma.impl..} reads a system property ({@code System.getProperty},
 * {@code System.getProperties}, {@code Boolean.getBoolean}, {@code Integer.getInteger},
 * {@code Long.getLong}, called or passed as a method reference), but the launcher and the few
 * classes named below, each allowed one kind of read of a fact of the JVM, for the reason given.
 * In the public package only {@code JvmDefaults} reads them.
 */
class SystemPropertiesAtTheEdgeTest {

  /** The reads of a system property: owner class, method names. */
  private static final Map<String, Set<String>> READS = Map.of(
      "java.lang.System", Set.of("getProperty", "getProperties"),
      "java.lang.Boolean", Set.of("getBoolean"),
      "java.lang.Integer", Set.of("getInteger"),
      "java.lang.Long", Set.of("getLong"));

  /**
   * The launcher ({@code bin/rmarun}'s JVMs and those mpiexec and srun start): an edge of its own,
   * a client of the API that reads what it hands its JVMs. It is moving to {@code impl.launch};
   * until then, these classes of {@code impl.runtime} (and their nested classes).
   */
  private static final Set<String> LAUNCHER_IN_RUNTIME = Set.of("ProcessManagerRun", "ManagedNetwork", "SourceProgram",
      "ClassDataArchive", "UserJobKey");

  /** Classes below the edge that read a fact of the JVM, never a setting of the library: the read allowed, why. */
  private static final Map<String, Allowed> JVM_FACTS = Map.of(
      "dev.vertxrma.impl.job.RankHost", new Allowed("getProperty",
          "java.home, named in the error of a virtual-thread job on a JVM older than Java 21"),
      "dev.vertxrma.impl.transport.PrivateFile", new Allowed("getProperty",
          "user.name, the owner a secret file must have where the system tells no user id"),
      "dev.vertxrma.impl.memory.SharedMapping", new Allowed("getProperty",
          "java.io.tmpdir, where shared-window segments go on a host without a writable /dev/shm"),
      "dev.vertxrma.impl.runtime.LauncherClusterManager", new Allowed("getProperty",
          "java.util.logging.config.file and .class: whether the user configured logging, which a cluster node it "
              + "forms then leaves alone"),
      "dev.vertxrma.impl.runtime.ClusterSupport", new Allowed("getProperties",
          "the user's own ${...} placeholders of a cluster.xml; rma.host, rma.members and rma.clusterPort "
              + "there come from ClusterOptions and win"));

  private record Allowed(String method, String reason) {
  }

  private static JavaClasses classes;

  private static String allowedFacts() {
    StringBuilder sb = new StringBuilder();
    JVM_FACTS.forEach((c, a) -> sb.append(sb.length() == 0 ? "" : "; ").append(c.substring(c.lastIndexOf('.') + 1))
        .append('.').append(a.method()).append(" (").append(a.reason()).append(')'));
    return sb.toString();
  }

  @BeforeAll
  static void load() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.vertxrma");
  }

  /** The class's name without its nested classes' part. */
  private static String outer(JavaClass c) {
    String name = c.getName();
    int dollar = name.indexOf('$');
    return dollar < 0 ? name : name.substring(0, dollar);
  }

  private static boolean launcher(JavaClass c) {
    String outer = outer(c);
    if (c.getPackageName().startsWith("dev.vertxrma.impl.launch")) {
      return true;
    }
    String simple = outer.substring(outer.lastIndexOf('.') + 1);
    return c.getPackageName().equals("dev.vertxrma.impl.runtime")
        && (simple.startsWith("RmaRun") || LAUNCHER_IN_RUNTIME.contains(simple));
  }

  /** The system-property reads of {@code c}, calls and method references, other than those {@code allowed} names. */
  private static List<String> reads(JavaClass c, String allowed) {
    List<JavaAccess<?>> accesses = new ArrayList<>(c.getMethodCallsFromSelf());
    accesses.addAll(c.getMethodReferencesFromSelf());
    List<String> found = new ArrayList<>();
    for (JavaAccess<?> access : accesses) {
      AccessTarget target = access.getTarget();
      Set<String> methods = READS.get(target.getOwner().getName());
      if (methods != null && methods.contains(target.getName()) && !target.getName().equals(allowed)) {
        found.add(access.getDescription());
      }
    }
    return found;
  }

  private static ArchCondition<JavaClass> readNoSystemPropertyExcept(Map<String, Allowed> allowed) {
    return new ArchCondition<>("read no system property") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        Allowed a = allowed.get(outer(c));
        for (String read : reads(c, a == null ? null : a.method())) {
          events.add(SimpleConditionEvent.violated(c, read));
        }
      }
    };
  }

  @Test
  void noImplementationClassBelowTheEdgeReadsASystemProperty() {
    classes().that().resideInAPackage("dev.vertxrma.impl..")
        .and(new com.tngtech.archunit.base.DescribedPredicate<JavaClass>("are not the launcher") {
          @Override
          public boolean test(JavaClass c) {
            return !launcher(c);
          }
        })
        .should(readNoSystemPropertyExcept(JVM_FACTS))
        .because("the engine takes its settings from the options tree, resolved at the edge (JvmDefaults, the "
            + "launcher); the reads of JVM facts allowed are " + allowedFacts())
        .check(classes);
  }

  @Test
  void inThePublicPackageOnlyJvmDefaultsReadsThem() {
    classes().that().resideInAPackage("dev.vertxrma").and().doNotHaveSimpleName("JvmDefaults")
        .should(readNoSystemPropertyExcept(Map.of()))
        .because("a new options object starts from JvmDefaults, the one place of the public package that reads them")
        .check(classes);
  }

  /**
   * The environment is read only at the edges, as the system properties are (issue 43): the
   * launcher ({@code impl.launch}), {@code JvmDefaults} (a new options object starts from this
   * process's defaults, {@code RMA_JOB_SECRET_FILE} among them) and the benchmarks, a client; the
   * engine reads the secret's file the options name.
   */
  @Test
  void onlyTheEdgesReadTheEnvironment() {
    com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses().that().resideInAPackage("dev.vertxrma..")
        .and().resideOutsideOfPackages("dev.vertxrma.impl.launch..", "dev.vertxrma.bench..")
        .and().doNotHaveFullyQualifiedName(JvmDefaults.class.getName())
        .should().callMethod(System.class, "getenv", String.class)
        .orShould().callMethod(System.class, "getenv")
        .because("the engine takes the job secret's file and every other setting from the options it is handed "
            + "(JobOptions.getSecretFile, resolved from RMA_JOB_SECRET_FILE at the edge)")
        .check(classes);
  }

  /**
   * No library class sets a system property (issue 43): what a launcher resolves (network, ports,
   * configuration directory, secret) goes on the options it hands down, not into system
   * properties for a later {@code new JobOptions()} to read.
   */
  @Test
  void noLibraryClassSetsASystemProperty() {
    com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses().that().resideInAPackage("dev.vertxrma..")
        .should().callMethod(System.class, "setProperty", String.class, String.class)
        .orShould().callMethod(System.class, "setProperties", java.util.Properties.class)
        .orShould().callMethod(System.class, "clearProperty", String.class)
        .because("settings resolved at an edge travel down as options and values")
        .check(classes);
  }
}
