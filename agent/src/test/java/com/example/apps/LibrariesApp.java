package com.example.apps;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * A test application that builds its pools through two libraries legacy applications are full
 * of: HikariCP (a connection pool on an in-memory H2 database: its executors add and close
 * connections) and Spring's {@code ThreadPoolTaskExecutor}. Checks that each works as it does
 * without the agent, prints {@code OK}/{@code FAIL} per check, then the agent's pool table
 * ({@link AgentDump}) when the agent is there, then {@code END}.
 */
public final class LibrariesApp {

    private LibrariesApp() {
    }

    /**
     * Both libraries' pools stay open until the agent's table is printed: the agent lists pools
     * weakly, so a closed pool may be collected, and leave the table, before the dump.
     */
    public static void main(String[] args) throws Exception {
        HikariDataSource ds = hikari();
        try {
            ThreadPoolTaskExecutor executor = spring();
            try {
                if (Boolean.getBoolean("apps.dumpAgent")) {
                    System.gc(); // what CI's run did by chance: open pools stay listed
                    AgentDump.print();
                }
            } finally {
                executor.shutdown();
            }
        } finally {
            ds.close();
        }
        System.out.println("END");
        System.exit(0);
    }

    static void check(String name, boolean ok, Object detail) {
        System.out.println((ok ? "OK " : "FAIL ") + name + (ok ? "" : ": " + detail));
    }

    /**
     * Ten connections wanted, four at least idle: HikariCP's add-connection executor fills the pool.
     * Returns the data source, open, for the caller to close.
     */
    static HikariDataSource hikari() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:turntable;DB_CLOSE_DELAY=-1");
        config.setMaximumPoolSize(10);
        config.setMinimumIdle(4);
        config.setPoolName("shop-db");
        HikariDataSource ds = new HikariDataSource(config);
        try {
            List<Connection> held = new ArrayList<>();
            try {
                for (int i = 0; i < 10; i++) {
                    held.add(ds.getConnection()); // each one past the idle four makes HikariCP add one
                }
                try (Statement s = held.get(9).createStatement(); ResultSet r = s.executeQuery("SELECT 40 + 2")) {
                    check("hikari.query", r.next() && r.getInt(1) == 42, "SELECT 40 + 2 did not give 42");
                }
            } finally {
                for (Connection c : held) {
                    c.close();
                }
            }
            check("hikari.total", ds.getHikariPoolMXBean().getTotalConnections() == 10,
                    ds.getHikariPoolMXBean().getTotalConnections() + " connections");
            return ds;
        } catch (Exception | Error e) {
            ds.close();
            throw e;
        }
    }

    /** Runs 200 tasks through Spring's pool and returns it, running, for the caller to shut down. */
    static ThreadPoolTaskExecutor spring() throws Exception {
        ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
        executor.setCorePoolSize(2);
        executor.setMaxPoolSize(4);
        executor.setQueueCapacity(1000); // room for every task: a burst into a fresh pool races its threads' start
        executor.setThreadNamePrefix("spring-");
        executor.initialize();
        try {
            ThreadPoolExecutor pool = executor.getThreadPoolExecutor();
            AgentDump.queue("spring", pool);
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                results.add(executor.submit(() -> n * 2));
            }
            long sum = 0;
            for (Future<Integer> f : results) {
                sum += f.get(10, TimeUnit.SECONDS);
            }
            check("spring.results", sum == 2L * 199 * 200 / 2, "sum " + sum);
            return executor;
        } catch (Exception | Error e) {
            executor.shutdown();
            throw e;
        }
    }
}
