package dev.vertxrma.impl.launch;

import dev.vertxrma.JobOptions;

import dev.vertxrma.impl.runtime.ClusterSupport;
import dev.vertxrma.impl.transport.JobSecret;
import java.io.IOException;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code rmarun PROGRAM [ARGS]} without {@code -np} in a process started by an existing process
 * manager: MPICH's Hydra {@code mpiexec} ({@code PMI_RANK}, {@code PMI_SIZE}, {@code PMI_FD},
 * {@code MPI_LOCALRANKID}, {@code MPI_LOCALNRANKS}) or Slurm's {@code srun} ({@code SLURM_PROCID},
 * {@code SLURM_NTASKS}, {@code SLURM_LOCALID}, {@code SLURM_JOB_ID}, {@code SLURM_STEP_ID},
 * {@code SLURM_STEP_NODELIST}...), or the Docker image's {@code docker/entrypoint.sh} for one member
 * of a job over containers ({@code RMA_MEMBERS}, {@code RMA_NP}, {@code RMA_RANKS},
 * {@code RMA_JOB}, {@code RMA_MEMBER_INDEX}: the network, ports and secret file are already in the
 * JVM's flags and environment). The process is one JVM holding one rank of the job (the
 * entrypoint's: the ranks {@code RMA_RANKS} gives), exactly as a JVM that {@code rmarun --jvms}
 * starts (clustered), with what rmarun would have given that JVM taken from the manager:
 * <ul>
 * <li>the job's name ({@code --job} if given): {@code mpiexec-} and Hydra's key-value space name
 *     (unique per job), {@code slurm-JOBID.STEPID}, or the entrypoint's {@code RMA_JOB};</li>
 * <li>the job secret: the file {@code RMA_JOB_SECRET_FILE} names if set; else under Hydra a fresh
 *     random one that rank 0 puts into the job's key-value space (which only the job's processes
 *     reach, through their PMI socket), under Slurm one derived from the user's own key
 *     ({@link UserJobKey});</li>
 * <li>the cluster's members: {@code --host}/{@code --hostfile} if given; else loopback when every
 *     process runs on this host; else Slurm's node list, or under Hydra this host's address and
 *     rank 0's (from the key-value space), from which Hazelcast finds the rest (the entrypoint
 *     gives them, with fixed ports, in {@code RMA_JAVA_OPTS});</li>
 * <li>the ports: any free ones (the default); ports fixed with {@code -Drma.clusterPort},
 *     {@code rma.busPort}, {@code rma.dataPort} are moved by local process number k
 *     ({@code MPI_LOCALRANKID}, {@code SLURM_LOCALID}) times their span, so that the processes of
 *     one host never collide.</li>
 * </ul>
 * Under Hydra the process leaves the job in order ({@code finalize}) only when its rank's program
 * succeeded; a failed one ends {@link #FAILED_WAIT_MS} later without it (the others, which have
 * seen the failure, normally end in that time and say why), upon which Hydra kills the job's
 * processes that still run.
 */
final class ProcessManagerRun {

  /**
   * How long a failed process waits under Hydra before it ends without {@code finalize}: it waits
   * every time (it cannot tell whether the others still run), so not rmarun's longer
   * {@link JvmLauncher#GRACE_MS}. The others have seen by then what this one saw: an abort
   * reaches them as a message, and a lost process is one membership event that every process
   * sees at about the same time.
   */
  static final long FAILED_WAIT_MS = 3_000;

  /** The manager that started this process. */
  enum Kind {
    HYDRA("mpiexec"), SLURM("srun"), ENTRYPOINT("docker/entrypoint.sh");

    final String command;

    Kind(String command) {
      this.command = command;
    }
  }

  /** PMI key of the job secret rank 0 puts (hex); and of rank 0's address. */
  static final String SECRET_KEY = "rmarun-secret";
  static final String ADDRESS_KEY = "rmarun-address";
  /** Rank 0's Hazelcast port, which the others join ({@link ClusterSupport#LEADER}); "-" for none. */
  static final String LEADER_KEY = "rmarun-leader-port";

  final Kind kind;
  /** The (first) rank of this process. */
  final int rank;
  /** How many ranks this process holds: 1, but for the entrypoint's member. */
  int rankCount = 1;
  /** This process's number among the JVMs of the job: its rank, or the entrypoint's member index. */
  int jvmIndex;
  final int size;
  /** This process's number among the job's processes of its host. */
  final int localRank;
  private final Map<String, String> env;
  /** The job's name as given by --job, or null. */
  private String givenJob;

  private ProcessManagerRun(Kind kind, int rank, int size, int localRank, Map<String, String> env) {
    this.kind = kind;
    this.rank = rank;
    this.jvmIndex = rank;
    this.size = size;
    this.localRank = localRank;
    this.env = env;
  }

  /** What the process manager leaves to rmarun: running this process's ranks with the job's secret. */
  interface Part {
    /**
     * Runs this JVM's ranks.
     *
     * @param base this process's options, resolved here at its edge: the network, ports and
     *     configuration directory it was given, and the job secret or its file; the part sets the
     *     job's own fields on a copy
     * @return the exit status
     */
    int run(JobOptions base);
  }

  /**
   * The process manager's part of the job if {@code env} is a process manager's and {@code a}
   * has no {@code -np} (which makes rmarun an ordinary launcher again); then {@code a} is set up as
   * the JVM of this process's ranks ({@code -np} the job's size, {@link RmaRunCommand#managed}) for
   * {@link RmaRunCommand#validate()}. Null otherwise.
   *
   * @throws RmaRunCommand.UsageError for an option that contradicts it ({@code --jvms},
   *     {@code --launch}) or an environment that is not consistent
   */
  static ProcessManagerRun of(RmaRunCommand a, Map<String, String> env) {
    if (a.np != null) {
      return null;
    }
    ProcessManagerRun pm;
    if (env.containsKey("PMI_RANK") && env.containsKey("MPI_LOCALRANKID")) {
      pm = new ProcessManagerRun(Kind.HYDRA, number(env, "PMI_RANK"), number(env, "PMI_SIZE"),
          number(env, "MPI_LOCALRANKID"), env);
      number(env, "PMI_FD"); // required: the job's name and secret travel over it
    } else if (env.containsKey("SLURM_PROCID") && first(env, "SLURM_STEP_ID", "SLURM_STEPID") != null) {
      pm = new ProcessManagerRun(Kind.SLURM, number(env, "SLURM_PROCID"), number(env, "SLURM_NTASKS", "SLURM_NPROCS"),
          env.containsKey("SLURM_LOCALID") ? number(env, "SLURM_LOCALID") : 0, env);
      if (first(env, "SLURM_JOB_ID", "SLURM_JOBID") == null) {
        throw new RmaRunCommand.UsageError("srun's environment has no SLURM_JOB_ID: the job's name is made of it");
      }
      pm.slurmNodes(); // checked now: a malformed list is a usage error
    } else if (env.containsKey("RMA_MEMBERS") && env.containsKey("RMA_RANKS")) {
      pm = entrypoint(env);
    } else {
      return null;
    }
    String under = " under " + pm.kind.command + ": each process is one JVM holding "
        + (pm.kind == Kind.ENTRYPOINT ? "the ranks RMA_RANKS gives" : "one rank");
    if (pm.size < 1 || pm.rank >= pm.size) {
      throw new RmaRunCommand.UsageError(pm.kind.command + "'s environment gives rank " + pm.rank + " of a job of "
          + pm.size + " processes");
    }
    if (a.jvms != null) {
      throw new RmaRunCommand.UsageError("--jvms " + a.jvms + under);
    }
    if (a.launch != null) {
      throw new RmaRunCommand.UsageError("--launch " + a.launch + under + ", started by " + pm.kind.command);
    }
    if (!a.env.isEmpty()) {
      throw new RmaRunCommand.UsageError("-x " + a.env.get(0) + under + ", whose environment is the one "
          + pm.kind.command + " gives it (" + (pm.kind == Kind.HYDRA ? "mpiexec -genv NAME VALUE"
          : pm.kind == Kind.SLURM ? "srun --export" : "docker run -e NAME=VALUE") + ")");
    }
    a.np = pm.size;
    a.managed = true;
    a.quiet = true;
    pm.givenJob = a.job;
    return pm;
  }

  /** The member of a job over containers that {@code docker/entrypoint.sh} starts, from the variables it sets. */
  private static ProcessManagerRun entrypoint(Map<String, String> env) {
    int size = number(env, "RMA_NP");
    String ranks = env.get("RMA_RANKS").trim();
    String[] r = ranks.split(":", -1);
    int first;
    int count;
    try {
      first = Integer.parseInt(r[0]);
      count = r.length == 2 ? Integer.parseInt(r[1]) : -1;
    } catch (NumberFormatException e) {
      first = -1;
      count = -1;
    }
    if (first < 0 || count < 1 || (long) first + count > size) {
      throw new RmaRunCommand.UsageError("RMA_RANKS=" + ranks + " must be FIRST:COUNT, ranks within 0.." + (size - 1)
          + " of RMA_NP=" + size);
    }
    if (first(env, "RMA_JOB") == null) {
      throw new RmaRunCommand.UsageError("RMA_JOB (the job's name, the same in every member) is not set");
    }
    ProcessManagerRun pm = new ProcessManagerRun(Kind.ENTRYPOINT, first, size, 0, env);
    pm.rankCount = count;
    pm.jvmIndex = env.containsKey("RMA_MEMBER_INDEX") ? number(env, "RMA_MEMBER_INDEX") : 0;
    return pm;
  }

  private static String first(Map<String, String> env, String... names) {
    for (String n : names) {
      String v = env.get(n);
      if (v != null && !v.isBlank()) {
        return v.trim();
      }
    }
    return null;
  }

  /** The number in the first of {@code names} that is set. */
  private static int number(Map<String, String> env, String... names) {
    String v = first(env, names);
    if (v == null) {
      throw new RmaRunCommand.UsageError(String.join(" or ", names) + " is not set, which the process manager sets "
          + "(rmarun takes this process's rank and the job's size from them)");
    }
    try {
      int n = Integer.parseInt(v);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new RmaRunCommand.UsageError(names[0] + "=" + v + " is not a number of processes or a rank");
  }

  /** The step's nodes (expanded), from SLURM_STEP_NODELIST, else SLURM_JOB_NODELIST; empty if neither is set. */
  List<String> slurmNodes() {
    String name = env.containsKey("SLURM_STEP_NODELIST") ? "SLURM_STEP_NODELIST"
        : env.containsKey("SLURM_JOB_NODELIST") ? "SLURM_JOB_NODELIST" : "SLURM_NODELIST";
    String list = env.get(name);
    if (list == null) {
      return List.of();
    }
    try {
      return SlurmHostList.expand(list);
    } catch (IllegalArgumentException e) {
      throw new RmaRunCommand.UsageError(name + ": " + e.getMessage());
    }
  }

  /** "rank R of N under mpiexec" (ranks R..S for the entrypoint's member): for messages. */
  String describe() {
    return (rankCount == 1 ? "rank " + rank : "ranks " + rank + ".." + (rank + rankCount - 1)) + " of " + size
        + " under " + kind.command;
  }

  /**
   * Runs this process's ranks: agrees on the job's name ({@code a.job}), secret and members with
   * the other processes, then runs {@code part} (the JVM's ranks, as rmarun runs them) and, under
   * Hydra, leaves the job in order if it succeeded.
   *
   * @return the exit status: {@code part}'s, or 1 when the job could not be set up
   */
  int run(RmaRunCommand a, PrintStream err, Part part) {
    long waitMs = Math.max(60, a.timeoutSeconds) * 1000L;
    PmiWire pmi = null;
    String secret = null;
    JobOptions base;
    try {
      String secretFile = env.get(JobSecret.FILE_ENV);
      boolean ownSecret = secretFile == null || secretFile.isBlank();
      ManagedNetwork net;
      String leaderPort = null;
      String leaderHost0 = null;
      if (kind == Kind.ENTRYPOINT) {
        // the entrypoint set the network and ports (RMA_JAVA_OPTS) and the secret's file
        net = null;
        a.job = givenJob != null ? givenJob : first(env, "RMA_JOB");
      } else if (kind == Kind.HYDRA) {
        // PMI first: from here on a failure of this process (which then ends without finalize)
        // makes Hydra stop the others, instead of leaving them waiting in the barrier
        PmiWire wire = PmiWire.inherited(number(env, "PMI_FD"));
        pmi = wire;
        String kvs = within(waitMs, () -> {
          wire.init();
          return wire.kvsName();
        });
        net = network(a);
        String[] agreed = within(waitMs, exchange(wire, kvs, net, ownSecret));
        a.job = givenJob != null ? givenJob : jobName("mpiexec-", kvs);
        leaderPort = agreed[2];
        leaderHost0 = agreed[1];
        if (ownSecret != !"-".equals(agreed[0])) {
          throw new IOException(JobSecret.FILE_ENV + " is set for " + (ownSecret ? "rank 0 but not for this process"
              : "this process but not for rank 0") + ": give every process of the job the same (mpiexec -genv "
              + JobSecret.FILE_ENV + " FILE), or none");
        }
        if (ownSecret) {
          secret = Base64.getEncoder().encodeToString(HexFormat.of().parseHex(agreed[0]));
        }
        if (net != null && net.members() == null) {
          String host = net.host() != null ? net.host() : ManagedNetwork.hydraAddress(env, agreed[1]);
          net = new ManagedNetwork(host, "-".equals(agreed[1]) ? host
              : String.join(",", new LinkedHashSet<>(List.of(agreed[1], host))));
        }
      } else {
        net = network(a);
        a.job = givenJob != null ? givenJob
            : jobName("slurm-", first(env, "SLURM_JOB_ID", "SLURM_JOBID") + "." + first(env, "SLURM_STEP_ID", "SLURM_STEPID"));
        if (ownSecret) {
          secret = UserJobKey.jobSecret(UserJobKey.file(UserJobKey.home()), a.job);
        }
      }
      // this process's options: its JVM's defaults (-D flags), then what was resolved here, set
      // on the options (never back into system properties, which a later new JobOptions() read)
      base = new JobOptions().setSecretFile(ownSecret ? null : secretFile).setSecret(secret);
      Properties network = new Properties();
      network.putAll(System.getProperties());
      ManagedNetwork.apply(net, network, localRank);
      applyNetwork(network, base);
      if (leaderPort != null && !"-".equals(leaderPort)) {
        String leaderHost = leaderHost0 == null || "-".equals(leaderHost0) ? "127.0.0.1" : leaderHost0;
        base.getClusterOptions().setLeader(leaderHost + ":" + leaderPort);
        if (rank == 0) {
          base.getClusterOptions().setClusterPort(Integer.parseInt(leaderPort));
        }
      }
      if (a.conf != null) {
        useConf(a.conf, base, err);
      }
    } catch (IOException | RuntimeException e) {
      err.println("rmarun: " + describe() + ": " + (e instanceof RmaRunCommand.UsageError || e instanceof IOException
          ? e.getMessage() : e.toString()));
      return 1; // under Hydra without finalize: it stops the job's other processes
    }
    int status = part.run(base);
    if (status != 0 && pmi != null) {
      // the other processes get FAILED_WAIT_MS to end on their own (and say why); then this one
      // ends without finalize, upon which Hydra stops any that still run
      try {
        Thread.sleep(FAILED_WAIT_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (status == 0 && pmi != null) {
      try {
        within(10_000, pmi::finalizeJob);
      } catch (IOException e) {
        err.println("rmarun: " + describe() + " of job " + a.job + ": cannot leave the job in order: " + e.getMessage());
        return 1;
      }
    }
    return status;
  }

  /**
   * {@code --conf DIR} in this JVM, which is already running: its {@code cluster.xml} and
   * {@code tls/} (read when the job starts) and {@code logging.properties} (read now); its
   * {@code jvm.options} cannot be, which a line on {@code err} says.
   */
  private void useConf(java.nio.file.Path conf, JobOptions base, PrintStream err) throws IOException {
    base.getClusterOptions().setConfigDirectory(conf.toString());
    java.nio.file.Path logging = conf.resolve("logging.properties");
    if (java.nio.file.Files.isRegularFile(logging)) {
      try (java.io.InputStream in = java.nio.file.Files.newInputStream(logging)) {
        java.util.logging.LogManager.getLogManager().readConfiguration(in);
      }
    }
    if (java.nio.file.Files.isRegularFile(conf.resolve("jvm.options"))) {
      err.println("rmarun: " + describe() + ": " + conf.resolve("jvm.options") + " is not used: this JVM was started by "
          + kind.command + " (give its flags in RMA_JAVA_OPTS)");
    }
  }

  /**
   * Sets on {@code base} the network of {@code network} ({@link ManagedNetwork#apply}: this JVM's
   * system properties with the host, members and moved ports resolved here): the host of the
   * cluster and the data plane, the members, and the cluster, event-bus and data-plane ports.
   */
  static void applyNetwork(Properties network, JobOptions base) {
    String host = network.getProperty(ClusterSupport.HOST);
    if (host != null && !host.isBlank()) {
      base.getClusterOptions().setHost(host.trim());
      base.getTransportOptions().setHost(host.trim());
    }
    String members = network.getProperty(ClusterSupport.MEMBERS);
    if (members != null && !members.isBlank()) {
      base.getClusterOptions().setMembers(members.trim());
    }
    Integer clusterPort = port(network, ClusterSupport.CLUSTER_PORT);
    if (clusterPort != null) {
      base.getClusterOptions().setClusterPort(clusterPort);
    }
    Integer busPort = port(network, ClusterSupport.BUS_PORT);
    if (busPort != null) {
      base.getClusterOptions().setBusPort(busPort);
    }
    Integer dataPort = port(network, ClusterSupport.DATA_PORT);
    if (dataPort != null) {
      base.getTransportOptions().setPort(dataPort);
    }
  }

  /** The port property {@code name} of {@code p}, or {@code null} when unset or no number (the options' own stays). */
  private static Integer port(Properties p, String name) {
    String v = p.getProperty(name);
    try {
      return v == null || v.isBlank() ? null : Integer.valueOf(v.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** A job name of {@code prefix} and {@code id}: its characters outside [A-Za-z0-9._-] replaced, at most 64 long. */
  static String jobName(String prefix, String id) {
    String name = prefix + id.replaceAll("[^A-Za-z0-9._-]", "-");
    if (name.length() <= 64) {
      return name;
    }
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(id.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return prefix + HexFormat.of().formatHex(digest, 0, 16);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * This process's network, null for loopback (every process on this host): the host list if
   * given, else Slurm's node list; under Hydra over hosts, rank 0's address now and the others'
   * once rank 0's is known (members null until then).
   */
  private ManagedNetwork network(RmaRunCommand a) throws IOException {
    if (!a.hosts.isEmpty()) {
      List<String> addresses = a.hosts.stream().map(HostList.Host::address).toList();
      return addresses.stream().allMatch(HostList::isLoopback) ? null : ManagedNetwork.ofHosts(addresses);
    }
    if (kind == Kind.HYDRA) {
      String count = env.get("MPI_LOCALNRANKS");
      if (count == null || count.trim().equals(String.valueOf(size))) {
        return null;
      }
      return new ManagedNetwork(rank == 0 ? ManagedNetwork.hydraAddress(env, null) : null, null);
    }
    List<String> nodes = new ArrayList<>(new LinkedHashSet<>(slurmNodes()));
    return nodes.size() <= 1 ? null : ManagedNetwork.ofNodes(nodes, first(env, "SLURMD_NODENAME"));
  }

  /**
   * Hydra's part after init: rank 0's secret (hex; "-" when it is in the file
   * {@code RMA_JOB_SECRET_FILE} names, {@code share} false) and address ("-" on loopback) put into
   * the job's key-value space {@code kvs} before a barrier of every process, and read after it.
   *
   * @return secret (hex, or "-"), rank 0's address, rank 0's Hazelcast port (or "-")
   */
  private java.util.concurrent.Callable<String[]> exchange(PmiWire pmi, String kvs, ManagedNetwork net, boolean share) {
    return () -> {
      if (rank == 0) {
        byte[] secret = new byte[JobSecret.RANDOM_BYTES];
        new SecureRandom().nextBytes(secret);
        pmi.put(kvs, SECRET_KEY, share ? HexFormat.of().formatHex(secret) : "-");
        pmi.put(kvs, ADDRESS_KEY, net == null ? "-" : net.host());
        // the cluster forms around rank 0: the others join it directly (Hazelcast's required
        // member), whatever order the processes start in; a port fixed by the user is kept
        int port = System.getProperty(ClusterSupport.CLUSTER_PORT) != null ? -1
            : LeaderPort.free(net == null || net.host() == null ? ClusterSupport.host() : net.host());
        pmi.put(kvs, LEADER_KEY, port > 0 ? String.valueOf(port) : "-");
      }
      pmi.barrier();
      return new String[] {pmi.get(kvs, SECRET_KEY), pmi.get(kvs, ADDRESS_KEY), pmi.get(kvs, LEADER_KEY)};
    };
  }

  /** A blocking exchange with the process manager, run by a daemon thread for at most {@code ms}. */
  private static <T> T within(long ms, java.util.concurrent.Callable<T> call) throws IOException {
    FutureTask<T> task = new FutureTask<>(call);
    Thread t = new Thread(task, "rmarun-process-manager");
    t.setDaemon(true);
    t.start();
    try {
      return task.get(ms, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IOException("the process manager did not answer within " + ms / 1000 + " s (do all processes of the "
          + "job run bin/rmarun with the same arguments, without -np?)");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof IOException ? (IOException) c : new IOException(String.valueOf(c), c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while talking to the process manager", e);
    }
  }

  private interface Call {
    void run() throws IOException;
  }

  private static void within(long ms, Call call) throws IOException {
    within(ms, () -> {
      call.run();
      return null;
    });
  }
}
