package com.example.webapp;

import javax.management.MBeanServer;
import javax.management.MBeanServerBuilder;
import javax.management.MBeanServerDelegate;

/**
 * An {@code MBeanServerBuilder} as an application server names one with
 * {@code -Djavax.management.builder.initial}, shipped in the "web application" of
 * {@code com.example.apps.MBeanServerBuilderApp}: loaded from a jar of its own that only that
 * application's class loader (the context class loader of its threads) reads. Prints
 * {@code BUILDER thread=<name> loader=<its loader's name>} when the JVM's MBean server is made.
 */
public class WebAppMBeanServerBuilder extends MBeanServerBuilder {

    @Override
    public MBeanServer newMBeanServer(String defaultDomain, MBeanServer outer, MBeanServerDelegate delegate) {
        System.out.println("BUILDER thread=" + Thread.currentThread().getName()
                + " loader=" + getClass().getClassLoader().getName());
        return super.newMBeanServer(defaultDomain, outer, delegate);
    }
}
