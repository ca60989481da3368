package com.example.apps;

/** The trivial main the start-up cost is measured on: prints one line and exits. */
public final class HelloApp {

    private HelloApp() {
    }

    public static void main(String[] args) {
        System.out.println("hello");
    }
}
