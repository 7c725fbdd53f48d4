Feature: A palette of saved colours that survives a reload

  @R6
  Scenario: Saving the current colour adds a swatch
    Given the app is open
    Then the palette is empty
    And the palette count is "0 / 8"
    When I click save to palette
    Then the palette shows "#336699"
    And palette swatch 1 has the colour "rgb(51, 102, 153)"
    And the palette count is "1 / 8"
    And the palette message is "Saved #336699"

  @R6
  Scenario: Swatches are kept in the order they were saved
    Given the app is open
    When I save the colours "#FF8800, #000000, #0AABCD"
    Then the palette shows "#FF8800, #000000, #0AABCD"
    And palette swatch 3 has the colour "rgb(10, 171, 205)"
    And the palette count is "3 / 8"
    And the palette message is "Saved #0AABCD"

  @R6
  Scenario: A duplicate colour is refused
    Given the app is open
    When I save the colours "#FF8800, #336699"
    And I apply the hex code "#f80" with Enter
    And I click save to palette
    Then the palette message is "#FF8800 is already in the palette"
    And the palette shows "#FF8800, #336699"
    And the palette count is "2 / 8"

  @R6
  Scenario: The palette holds at most eight colours
    Given the app is open
    When I save the colours "#000001, #000002, #000003, #000004, #000005, #000006, #000007, #000008"
    Then the palette count is "8 / 8"
    When I apply the hex code "#000009" with Enter
    And I click save to palette
    Then the palette message is "Palette is full (max 8 colours)"
    And the palette count is "8 / 8"
    And the palette shows "#000001, #000002, #000003, #000004, #000005, #000006, #000007, #000008"

  @R7
  Scenario: Clicking a swatch restores its colour
    Given the app is open
    When I save the colours "#FF8800, #0AABCD, #FFFFFF"
    And I click palette swatch 2
    Then the sliders show 10, 171, 205
    And the hex code is "#0AABCD"
    And the swatch colour is "rgb(10, 171, 205)"

  @R7
  Scenario: Restoring updates the contrast values
    Given the app is open
    When I save the colours "#FFFFFF, #767676"
    And I set the sliders to 0, 0, 0
    And I click palette swatch 1
    Then the contrast against white is "1.00" rated "fail"
    And the contrast against black is "21.00" rated "AA"

  @R7
  Scenario: Restoring leaves the palette unchanged
    Given the app is open
    When I save the colours "#112233, #445566, #778899"
    And I click palette swatch 3
    And I click palette swatch 1
    Then the hex code is "#112233"
    And the palette shows "#112233, #445566, #778899"
    And the palette count is "3 / 8"

  @R8
  Scenario: The palette survives a reload
    Given the app is open
    When I save the colours "#FF8800, #0AABCD"
    And I reload the page
    Then the palette shows "#FF8800, #0AABCD"
    And palette swatch 2 has the colour "rgb(10, 171, 205)"
    And the palette count is "2 / 8"
    And the stored palette is '["#FF8800","#0AABCD"]'

  @R8
  Scenario: Only the palette is restored after a reload
    Given the app is open
    When I save the colours "#FF8800"
    And I reload the page
    Then the hex code is "#336699"
    And the sliders show 51, 102, 153
    And the hex input contains ""
    And the palette message is ""
    When I click palette swatch 1
    Then the hex code is "#FF8800"

  @R8
  Scenario: A stored palette is read defensively
    Given the app is open with the stored palette '["#ff0000", "bogus", 7, "#00FF00", "#FF0000", "#abc"]'
    Then the palette shows "#FF0000, #00FF00"
    And the palette count is "2 / 8"

  @R8
  Scenario: Corrupt stored data gives an empty palette
    Given the app is open with the stored palette '{not json'
    Then the palette is empty
    And the palette count is "0 / 8"
    When I click save to palette
    Then the palette shows "#336699"
