package dev.turntable.jmx.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.management.Attribute;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

/**
 * turntablectl's commands that change a pool through its MBean's attributes and operations:
 * {@code set} (with its checks: the attribute is writable, the value parses as its type) and
 * {@code recycle} (with its check of the worker index). The task classes change through
 * {@link ClassCommands}. One instance per command run, used by the thread that runs the command;
 * not thread-safe.
 */
final class WriteCommands {

    private final PoolMBeans mbeans;
    private final MBeanServerConnection server;
    private final PrintStream out;
    private final boolean json;
    private final JsonDocument document;

    /** @param document where the {@code --json} document goes, or null without {@code --json} */
    WriteCommands(PoolMBeans mbeans, PrintStream out, JsonDocument document) {
        this.mbeans = mbeans;
        this.server = mbeans.server;
        this.out = out;
        this.json = document != null;
        this.document = document;
    }

    /** {@code set <pool> <attribute> <value>}: writes the value, and prints it before and after. */
    void set(String pool, String attribute, String text) throws CliException {
        ObjectName n = mbeans.pool(pool);
        MBeanAttributeInfo info = mbeans.attributeInfo(n, attribute);
        if (!info.isWritable()) {
            String name = info.getName();
            // The class settings change together, through an operation: say which command does it.
            String how = name.equals(PoolMBeans.CLASS_LOAD_PERCENTS) || name.equals(PoolMBeans.REQUESTOR_MAP)
                    ? " (class shares and the requestor map change together: turntablectl classes <pool> <percents>"
                            + " [<requestor-map>])"
                    : "";
            throw CliException.invalid(name + " is read-only" + how + "; writable attributes: "
                    + String.join(", ", PoolMBeans.ordered(mbeans.attributeInfos(n), MBeanAttributeInfo::isWritable)));
        }
        Object value = Values.parse(info.getName(), info.getType(), text);
        String refusal = "the JVM refused " + info.getName() + " = " + text;
        Object before = mbeans.call(pool, refusal, () -> Values.plain(server.getAttribute(n, info.getName())));
        Object after = mbeans.call(pool, refusal, () -> {
            server.setAttribute(n, new Attribute(info.getName(), value));
            return Values.plain(server.getAttribute(n, info.getName()));
        });
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("pool", pool);
            doc.put("attribute", info.getName());
            doc.put("oldValue", before);
            doc.put("value", after);
            document.print(doc);
        } else {
            out.println(info.getName() + ": " + Values.text(info.getName(), before) + " -> "
                    + Values.text(info.getName(), after));
        }
    }

    /** Asks the JVM to retire worker {@code index} of the pool at its next task boundary and replace it. */
    void recycle(String pool, String indexText) throws CliException {
        int index;
        try {
            index = Integer.parseInt(indexText.trim());
        } catch (NumberFormatException e) {
            String why = "worker index '" + indexText + "' is not valid: expected ";
            String where = " (the # column of turntablectl show " + pool + ")";
            if (indexText.trim().matches("[+-]?\\d+")) {
                throw CliException.invalid(why + "a worker's index, 0 up to the pool's size" + where);
            }
            throw CliException.usage(why + "a whole number" + where);
        }
        ObjectName n = mbeans.pool(pool);
        String thread = mbeans.call(pool, "the JVM refused to recycle worker " + index + " of pool " + pool, () -> {
            String threadName = null;
            for (Map<?, ?> w : PoolTables.workers(mbeans.read(n, PoolMBeans.WORKERS).get(PoolMBeans.WORKERS))) {
                if (Integer.valueOf(index).equals(w.get("index"))) {
                    Object name = w.get("threadName");
                    threadName = name == null || name.toString().isEmpty() ? null : name.toString();
                }
            }
            server.invoke(n, "recycleWorker", new Object[] {index}, new String[] {"int"});
            return threadName;
        });
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("pool", pool);
            doc.put("index", index);
            doc.put("threadName", thread);
            doc.put("recycled", true);
            document.print(doc);
        } else {
            out.println("worker " + index + (thread == null ? "" : " (" + thread + ")") + " of pool " + pool
                    + " retires at its next task boundary; a new thread from the pool's ThreadFactory replaces it");
        }
    }
}
