package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GlobTest {

    @ParameterizedTest
    @CsvSource({
        "*, anything.at-all, true",
        "Order*, OrderService.start, true",
        "Order*, MyOrderService.start, false",
        "*.start, OrderService.start-2, false",
        "*.start*, OrderService.start-2, true",
        "OrderService.start, OrderService.start, true",
        "OrderService.start, OrderServiceXstart, false",
        "Report?.run, Reports.run, true",
        "Report?.run, Report.run, false",
        "com.acme.*, com.acme.sub.Thing.run, true",
        "a+b, a+b, true",
        "a+b, aab, false",
        "order*, OrderService.start, false",
    })
    void matches(String glob, String text, boolean expected) {
        assertEquals(expected, Glob.of(glob).matches(text));
    }
}
